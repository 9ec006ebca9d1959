/**
 * Counts the functions of `src/` that take 5 or more positional parameters (issue 21: recurring groups
 * such as `{ context, tx, scope }` become one options object). Uses the TypeScript compiler's parser:
 * function declarations, methods, constructors, arrow functions and function expressions with a body;
 * a destructured parameter counts once, `this:` not at all.
 *
 *   node scripts/positional-params.ts [--max N] [dir ...]   (default dir: src; exits 1 above --max)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

/** The threshold: a function with this many positional parameters or more is reported. */
export const tooManyPositional = 5

export interface WideFunction {
  file: string
  line: number
  name: string
  parameters: number
}

/** Every function under `dirs` (recursively, `.ts` files) with `tooManyPositional` or more parameters. */
export function findWideFunctions(dirs: readonly string[], root = process.cwd()): WideFunction[] {
  const found: WideFunction[] = []
  for (const file of dirs.flatMap((dir) => tsFiles(join(root, dir)))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const parameters = node.parameters.filter(
          (parameter) => !(ts.isIdentifier(parameter.name) && parameter.name.text === 'this'),
        ).length
        if (parameters >= tooManyPositional) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source))
          found.push({ file: relative(root, file), line: line + 1, name: functionName(node), parameters })
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return found
}

function functionName(node: ts.SignatureDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  if (node.name && ts.isIdentifier(node.name)) return node.name.text
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text
  return '(anonymous)'
}

function tsFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return path.endsWith('.ts') ? [path] : []
  return readdirSync(path)
    .sort()
    .flatMap((entry) => tsFiles(join(path, entry)))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2)
  const maxAt = args.indexOf('--max')
  const max = maxAt >= 0 ? Number(args.splice(maxAt, 2)[1]) : Infinity
  const wide = findWideFunctions(args.length > 0 ? args : ['src'])
  for (const entry of wide) console.log(`${entry.file}:${entry.line}  ${entry.name}  ${entry.parameters}`)
  console.log(`${wide.length} function(s) with ${tooManyPositional} or more positional parameters`)
  if (wide.length > max) process.exit(1)
}
