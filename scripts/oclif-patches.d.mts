/** Types of scripts/oclif-patches.mjs (the string patches to @oclif/core's compiled files). */
export interface OclifPatch {
  file: string
  before: string
  after: string
}
export declare const patchedOclifVersion: string
export declare const commandSortPatch: OclifPatch
export declare const leanPatches: OclifPatch[]
export declare const leanExternals: string[]
export declare const lazyModuleFunction: string
export declare function oclifVersionMismatch(installed: string): string | undefined
export declare function applyPatches(file: string, source: string, patches: OclifPatch[]): string
export declare function oclifFile(path: string): string | undefined
