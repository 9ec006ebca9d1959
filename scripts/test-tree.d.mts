/** Types of scripts/test-tree.mjs (which unit test mirrors which module of src/). */
export declare const root: string
export declare const crossModule: Record<string, string>
export declare function filesUnder(dir: string, suffix: string): string[]
export declare function sourceModules(base?: string): string[]
export declare function unitTests(base?: string): string[]
export declare function moduleOf(test: string, modules: Iterable<string>): string | undefined
export declare function testTree(
  modules: string[],
  tests: string[],
): { tested: string[]; untested: string[]; unmatched: string[] }
