/**
 * The `yaml` package's `parseDocument`, run lexeme by lexeme so that nesting deeper than compose files
 * may have (nesting-depth.ts) stops the parse where it starts. Unchecked, a megabyte of `[[[[` or
 * `- - - -` took the package 3-11 s and up to 1 GB to build before a later stage ran out of stack.
 * The depth seen is the package's own: the stack of collections its CST parser has open.
 */
import type { Document, DocumentOptions, LineCounter, ParseOptions, Parser, SchemaOptions } from 'yaml'
import { UsageError } from '../errors.js'
import { yamlModule } from '../text/yaml-module.js'

/**
 * The parser's stack holds the document and the scalar being read besides the open collections
 * (checked on generated documents of every style: never more than 2 over the value's depth).
 */
const stackBeyondDepth = 2

/**
 * Thrown by `parseDocumentWithinDepth` at the offset where the text nests past the limit (the caller,
 * which knows the file, turns it into the loader's ComposeInputError).
 */
export class NestingTooDeep extends UsageError {
  override name = 'NestingTooDeep'
  override readonly code: string = 'ERR_COMPOSE_NESTING'
  readonly offset: number

  constructor(offset: number) {
    super(`nesting too deep at offset ${offset}`)
    this.offset = offset
  }
}

function* tokensWithinDepth(text: string, parser: Parser, depth: number) {
  const { Lexer } = yamlModule()
  for (const lexeme of new Lexer().lex(text)) {
    yield* parser.next(lexeme)
    if (parser.stack.length > depth + stackBeyondDepth) throw new NestingTooDeep(parser.offset)
  }
  yield* parser.end()
}

/**
 * `parseDocument(text, options)` with `lineCounter` filled, throwing NestingTooDeep as soon as the
 * text opens a collection more than `depth` levels deep (the top-level collection is level 1).
 */
export function parseDocumentWithinDepth(
  text: string,
  options: DocumentOptions & ParseOptions & SchemaOptions,
  lineCounter: LineCounter,
  depth: number,
): Document.Parsed {
  const { Composer, Parser: CstParser, YAMLParseError } = yamlModule()
  const parser = new CstParser(lineCounter.addNewLine)
  lineCounter.addNewLine(0)
  const composer = new Composer(options)
  let document: Document.Parsed | undefined
  for (const composed of composer.compose(tokensWithinDepth(text, parser, depth), true, text.length)) {
    if (document === undefined) document = composed
    else {
      const range = composed.range.slice(0, 2) as [number, number]
      document.errors.push(
        new YAMLParseError(
          range,
          'MULTIPLE_DOCS',
          'Source contains multiple documents; please use YAML.parseAllDocuments()',
        ),
      )
      break
    }
  }
  return document!
}
