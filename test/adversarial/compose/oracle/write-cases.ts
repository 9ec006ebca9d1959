/**
 * Writes every case of one set as NNN.yaml into the directory named on the command line: the set
 * `alias` (../alias-cases.ts, the default) or `deep-and-encoding` (../deep-and-encoding-cases.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { aliasCases } from '../alias-cases.js'
import { inputCases } from '../deep-and-encoding-cases.js'

const directory = process.argv[2] ?? 'cases'
const set = process.argv[3] ?? 'alias'
mkdirSync(directory, { recursive: true })
const cases =
  set === 'alias' ? aliasCases().map((entry) => entry.text) : inputCases().map((entry) => entry.bytes)
cases.forEach((content, index) =>
  writeFileSync(join(directory, `${String(index).padStart(3, '0')}.yaml`), content),
)
