// The folders of src/ import one way: every import (static, type-only, re-export or lazy import())
// follows the layer table of scripts/layers.mjs, so no folder-level cycle can form. The graph is read
// from the source text here, independently of eslint's zones that enforce the same table.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { allFolders, mayImport } from '../../scripts/layers.mjs'

const srcRoot = resolve(import.meta.dirname, '../../src')
const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  )
}

/** The top folder of src/ a path is in, or the file's own name for a top-level file. */
function folderOf(path: string): string {
  return relative(srcRoot, path).split('/')[0]!
}

/** Folder-level edges `from -> to`, each with one file-level example. */
function folderEdges(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>()
  for (const file of sourceFiles(srcRoot)) {
    for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
      const target = resolve(dirname(file), match[1]!)
      const from = folderOf(file)
      const to = folderOf(target)
      if (from === to) continue
      if (!edges.has(from)) edges.set(from, new Map())
      edges.get(from)!.set(to, `${relative(srcRoot, file)} -> ${match[1]}`)
    }
  }
  return edges
}

/** The strongly connected components of more than one folder (Tarjan). */
export function folderCycles(edges: Map<string, Iterable<string>>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const cycles: string[][] = []
  const visit = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        component.push(member)
      } while (member !== node)
      if (component.length > 1) cycles.push(component.sort())
    }
  }
  for (const node of edges.keys()) if (!index.has(node)) visit(node)
  return cycles
}

describe('the layers of src/', () => {
  const edges = folderEdges()

  it('finds a cycle when there is one (the check itself)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ])
    expect(folderCycles(graph)).toEqual([['a', 'b', 'c']])
  })

  it('has no folder-level import cycle, type-only and lazy imports included', () => {
    const graph = new Map([...edges].map(([from, targets]) => [from, [...targets.keys()]]))
    expect(folderCycles(graph)).toEqual([])
  })

  it('imports only along the layer table', () => {
    const wrong: string[] = []
    for (const [from, targets] of edges) {
      for (const [to, example] of targets) {
        const bothFolders = allFolders.includes(from) && allFolders.includes(to)
        if (bothFolders && !mayImport(from, to)) wrong.push(example)
      }
    }
    expect(wrong).toEqual([])
  })

  it('names every folder of src/ in the table', () => {
    const folders = readdirSync(srcRoot, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    expect(folders.filter((folder) => !allFolders.includes(folder))).toEqual([])
  })

  it('keeps src/server/ to at most 20 files at its top level', () => {
    const top = readdirSync(join(srcRoot, 'server')).filter((name) => name.endsWith('.ts'))
    expect(top.length).toBeLessThanOrEqual(20)
  })

  it('leaves the store free of the audit chain and the migrations (the caller migrates)', () => {
    const storeFiles = sourceFiles(join(srcRoot, 'server/store'))
    const reachUp = storeFiles.filter((file) =>
      /from '\.\.\/(migrations|keys\/row-mac)\.js'/.test(readFileSync(file, 'utf8')),
    )
    expect(reachUp.map((file) => relative(srcRoot, file))).toEqual([])
  })
})
