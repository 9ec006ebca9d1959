/** Writes every case of ../alias-cases.ts as NNN.yaml into the directory named on the command line. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { aliasCases } from '../alias-cases.js'

const directory = process.argv[2] ?? 'cases'
mkdirSync(directory, { recursive: true })
aliasCases().forEach((entry, index) =>
  writeFileSync(join(directory, `${String(index).padStart(3, '0')}.yaml`), entry.text),
)
