// Rewrites oclif.manifest.json with its commands in sorted order: oclif lists them in directory-listing
// order, which differs between checkouts, and the committed manifest must compare equal on any machine.
import { readFileSync, writeFileSync } from 'node:fs'

const path = new URL('../oclif.manifest.json', import.meta.url)
const manifest = JSON.parse(readFileSync(path, 'utf8'))
const commands = Object.fromEntries(Object.entries(manifest.commands).sort(([a], [b]) => a.localeCompare(b)))
writeFileSync(path, `${JSON.stringify({ ...manifest, commands }, null, 2)}\n`)
