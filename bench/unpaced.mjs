// Preloaded (node --import) into the baseline runs of bench/restore-memory.ts: takes `gc` away again,
// so that restore runs as it did before paced collection (src/process/gc-pacer.ts does nothing).
globalThis.gc = undefined
