// The import order of src/, in one table that eslint.config.js enforces (no-restricted-imports) and
// test/unit/layers.test.ts checks against the real import graph. A folder may import only folders
// of a later rank; folders of one rank do not import each other. The vault server, backups and the
// proxy stand beside the CLI's layers: they may use its lower ranks, and only the commands and the CLI's
// entry (cli/) use them.

/** The CLI's layers, top first. */
export const cliLayers = [
  ['commands'],
  ['cli', 'flows', 'scan'],
  ['rotate', 'doctor'],
  ['stack'],
  ['delivery', 'export'],
  ['client'],
  ['process'],
  ['masking', 'fs'],
  ['compose'],
  ['crypto', 'text'],
]

/** Programs beside the CLI's layers: what each may import (of the layers, and of each other). */
export const sideFolders = {
  server: ['client', 'process', 'fs', 'crypto', 'text'],
  backup: ['server', 'process', 'fs', 'crypto', 'text'],
  // compose: the compose policy (src/proxy/compose-policy/load.ts) renders a project with the loader
  // `vault render` uses, so that the proxy allows exactly what compose creates from the same files.
  proxy: ['text', 'compose'],
}

/** The folders of the CLI's layers that may import the side folders. */
export const sideFolderUsers = ['commands', 'cli']

/** The rank of a folder of src/ (0 is the top), or undefined for a side folder or a top-level file. */
export function rankOf(folder) {
  const rank = cliLayers.findIndex((layer) => layer.includes(folder))
  return rank === -1 ? undefined : rank
}

/** Whether a module in folder `from` may import one in folder `to` (both folders of src/). */
export function mayImport(from, to) {
  if (from === to) return true
  const fromRank = rankOf(from)
  const toRank = rankOf(to)
  if (from in sideFolders) return sideFolders[from].includes(to)
  if (to in sideFolders) return sideFolderUsers.includes(from)
  return fromRank !== undefined && toRank !== undefined && toRank > fromRank
}

/** Every folder of src/ the table names. */
export const allFolders = [...cliLayers.flat(), ...Object.keys(sideFolders)]
