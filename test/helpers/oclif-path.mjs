// Runs a vault command line through the full oclif path (dist/cli/oclif-path.js), never the lean path,
// as bin/run.js would otherwise: the reference that test/e2e/lean-path.test.ts and bench/cli-breakdown.ts
// compare the lean path with.
import * as nodeModule from 'node:module'

nodeModule.enableCompileCache?.()
const { runOclif } = await import('../../dist/cli/oclif-path.js')
await runOclif(new URL('../../bin/run.js', import.meta.url).href, process.argv.slice(2))
