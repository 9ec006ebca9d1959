/**
 * Writes `test/schemas/<id>.json`, the JSON Schema of each `--json` command's output, from the type
 * its `run()` promises (ts-json-schema-generator over the command's own imports). The schemas are
 * committed: a changed result type shows up as a changed schema file in review, and `--check` (make
 * schemas-check, part of CI) fails when a committed schema is stale. test/helpers/cli.ts and
 * run-command.ts validate every `--json` answer the tests see against these files.
 *
 *   npx tsx scripts/json-schemas.ts [--check]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createGenerator } from 'ts-json-schema-generator'

const root = fileURLToPath(new URL('../', import.meta.url))
const commandsDir = join(root, 'src/commands')
const schemaDir = join(root, 'test/schemas')

interface JsonCommand {
  /** The schema's file stem: the command id with `-` between words (`secrets-list`). */
  stem: string
  /** The type `run()` promises, as written in the command file. */
  resultType: string
  /** `import type` lines (relative to the generated file) for every name the type uses. */
  imports: string[]
}

function commandFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? commandFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  )
}

/** The commands with `--json` and the result type of each. */
function jsonCommands(generatedDir: string): JsonCommand[] {
  const found: JsonCommand[] = []
  for (const file of commandFiles(commandsDir)
    .filter((name) => name.endsWith('.ts'))
    .sort()) {
    const source = readFileSync(file, 'utf8')
    if (!/static override enableJsonFlag = true/.test(source)) continue
    const resultType = /async run\(\): Promise<(.+)> \{\n/.exec(source)?.[1]
    if (!resultType) throw new Error(`${relative(root, file)}: no 'async run(): Promise<...>' to read`)
    const id = relative(commandsDir, file)
      .replace(/\.ts$/, '')
      .replace(/\/index$/, '')
    const names = [...new Set(resultType.match(/\b[A-Z][A-Za-z0-9]*\b/g) ?? [])]
    const imports = names.map((name) => importOf(name, file, source, generatedDir))
    found.push({ stem: id.replaceAll('/', '-'), resultType, imports })
  }
  return found
}

/** Where the generated file imports `name` from: the command file itself, or the module it imports it from. */
function importOf(name: string, file: string, source: string, generatedDir: string): string {
  const relativeTo = (target: string) => {
    const path = relative(generatedDir, target)
    return path.startsWith('.') ? path : `./${path}`
  }
  if (new RegExp(`^export (interface|type) ${name}\\b`, 'm').test(source))
    return `import type { ${name} } from '${relativeTo(file).replace(/\.ts$/, '.js')}'`
  const from = new RegExp(`import[^;]*?\\b${name}\\b[^;]*?from '([^']+)'`, 's').exec(source)?.[1]
  if (!from) throw new Error(`${relative(root, file)}: cannot find where ${name} comes from`)
  return `import type { ${name} } from '${relativeTo(join(dirname(file), from))}'`
}

/** The schemas, by file name. */
function generate(): Map<string, string> {
  const generatedDir = mkdtempSync(join(root, 'test/.json-schemas-'))
  try {
    const commands = jsonCommands(generatedDir)
    const typesFile = join(generatedDir, 'types.ts')
    const alias = (command: JsonCommand) => `Json_${command.stem.replaceAll('-', '_')}`
    writeFileSync(
      typesFile,
      [
        ...new Set(commands.flatMap((command) => command.imports)),
        ...commands.map((command) => `export type ${alias(command)} = ${command.resultType}`),
      ].join('\n'),
    )
    const generator = createGenerator({
      path: typesFile,
      tsconfig: join(root, 'tsconfig.json'),
      type: '*',
      skipTypeCheck: true,
      additionalProperties: false,
      expose: 'none',
      topRef: false,
      jsDoc: 'none',
    })
    const schemas = new Map<string, string>()
    for (const command of commands) {
      const schema = generator.createSchema(alias(command))
      schema.$schema = 'http://json-schema.org/draft-07/schema#'
      schema.title = `vault ${command.stem.replaceAll('-', ' ')} --json`
      schemas.set(`${command.stem}.json`, `${JSON.stringify(schema, null, 2)}\n`)
    }
    return schemas
  } finally {
    rmSync(generatedDir, { recursive: true, force: true })
  }
}

const check = process.argv.includes('--check')
const stale: string[] = []
for (const [name, text] of generate()) {
  const path = join(schemaDir, name)
  let committed: string | undefined
  try {
    committed = readFileSync(path, 'utf8')
  } catch {
    committed = undefined
  }
  if (committed === text) continue
  if (check) stale.push(name)
  else writeFileSync(path, text)
}
if (stale.length > 0) {
  process.stderr.write(
    `stale --json schemas (run 'npx tsx scripts/json-schemas.ts' and commit): ${stale.join(', ')}\n`,
  )
  process.exit(1)
}
