#!/usr/bin/env node
import * as nodeModule from 'node:module'

const major = Number(process.versions.node.split('.')[0])
if (major < 24) {
  process.stderr.write(`Error: vault needs Node 24 or newer; this is Node ${process.versions.node}\n`)
  process.stderr.write('Hint: run `make setup` to install Node 24 into .tools/, then use .tools/node_modules/.bin/node\n')
  process.exit(3)
}
nodeModule.enableCompileCache?.()
const { execute } = await import('@oclif/core/execute')
await execute({ dir: import.meta.url })
