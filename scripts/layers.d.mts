/** Types of scripts/layers.mjs (the layer table of src/). */
export declare const cliLayers: string[][]
export declare const sideFolders: Record<string, string[]>
export declare const sideFolderUsers: string[]
export declare const allFolders: string[]
export declare function rankOf(folder: string): number | undefined
export declare function mayImport(from: string, to: string): boolean
