/**
 * One error family (issue 21): every error class of src/ descends from VaultError, carries its own
 * `name` and an `ERR_...` code, and is recognised with instanceof. The walk imports every module of
 * src/ (the proxy's serving entry aside: it runs on import), so a new exported error class fails here
 * until it has a sample below; a source scan catches error classes that are not exported.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { ExitCode, UsageError, VaultError, exitCodeOf, isVaultError } from '../../src/errors.js'

const srcDir = fileURLToPath(new URL('../../src/', import.meta.url))
const sideEffectEntries = new Set(['proxy/main.ts'])

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((entry) => {
      const path = join(dir, entry)
      return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : []
    })
    .sort()
}

type ErrorClass = new (...args: never[]) => Error

/** One construction of each error class, with the arguments its constructor takes. */
const samples: Record<string, (Class: ErrorClass) => Error> = {
  ApiError: (C) => new (C as unknown as new (...a: unknown[]) => Error)(404, 'not_found', 'no such secret'),
  OAuthError: (C) =>
    new (C as unknown as new (...a: unknown[]) => Error)(400, 'invalid_request', 'client_id is required'),
  InterpolationError: (C) =>
    new (C as unknown as new (...a: unknown[]) => Error)('Invalid template: "${"', 'ERR_INVALID_TEMPLATE'),
  RuleSyntaxError: (C) =>
    new (C as unknown as new (...a: unknown[]) => Error)('PROXY_RULES', 3, 'no pattern after the methods'),
  ComposeInputError: (C) =>
    new (C as unknown as new (...a: unknown[]) => Error)('compose.yaml', 2, 'mapping values are not allowed'),
  HookFailedError: (C) => new (C as unknown as new (...a: unknown[]) => Error)(3, 7),
  HostVariableError: (C) => new (C as unknown as new (...a: unknown[]) => Error)(['DOCKER_HOST']),
  RequiredVariableError: (C) =>
    new (C as unknown as new (...a: unknown[]) => Error)('DB', 'compose.yaml', 4, 'required variable DB'),
}

function construct(name: string, Class: ErrorClass): Error {
  const sample = samples[name]
  return sample ? sample(Class) : new (Class as unknown as new (message: string) => Error)('what happened')
}

async function exportedErrorClasses(): Promise<Map<string, ErrorClass>> {
  const classes = new Map<string, ErrorClass>()
  for (const file of sourceFiles(srcDir)) {
    const relative = file.slice(srcDir.length)
    if (sideEffectEntries.has(relative)) continue
    const module = (await import(file)) as Record<string, unknown>
    for (const value of Object.values(module)) {
      if (typeof value === 'function' && value.prototype instanceof Error) {
        classes.set(value.name, value as ErrorClass)
      }
    }
  }
  return classes
}

describe('the error family', () => {
  it('every exported error class descends from VaultError, with its own name and an ERR_ code', async () => {
    const classes = await exportedErrorClasses()
    // the walk must have found the family and the classes issue 21 names
    for (const name of [
      'VaultError',
      'UsageError',
      'IntegrityError',
      'ApiError',
      'OAuthError',
      'NetworkError',
      'RuleSyntaxError',
      'UnknownVariableError',
      'InterpolationError',
      'UnsupportedYaml',
    ]) {
      expect([...classes.keys()], name).toContain(name)
    }
    const problems: string[] = []
    for (const [name, Class] of classes) {
      const error = construct(name, Class)
      if (!(error instanceof VaultError)) problems.push(`${name} does not extend VaultError`)
      if (!(error instanceof Class)) problems.push(`${name} is not recognised with instanceof`)
      if (error.name !== name) problems.push(`${name} has name "${error.name}"`)
      const code = (error as { code?: unknown }).code
      if (typeof code !== 'string' || !/^ERR_[A-Z0-9_]+$/.test(code))
        problems.push(`${name} has code ${JSON.stringify(code)}`)
    }
    expect(problems).toEqual([])
  }, 60_000)

  it('no class in src/ extends Error other than VaultError, and no error class is left unexported', () => {
    const problems: string[] = []
    for (const file of sourceFiles(srcDir)) {
      const text = readFileSync(file, 'utf8')
      for (const match of text.matchAll(/^(export\s+)?(?:abstract\s+)?class\s+(\w+)\s+extends\s+(\w+)/gm)) {
        const [, exported, name, base] = match
        if (base === 'Error' && name !== 'VaultError') problems.push(`${name} extends Error`)
        if (/Error$/.test(base!) && !exported)
          problems.push(`${name} is not exported (the walk cannot see it)`)
      }
    }
    expect(problems).toEqual([])
  })

  it('the recognition of a subclass survives a foreign message: instanceof, not a code string', async () => {
    const { IntegrityError } = await import('../../src/errors.js')
    const { NetworkError } = await import('../../src/client/http-send.js')
    const network = new NetworkError('ECONNREFUSED')
    expect(network).toBeInstanceOf(VaultError)
    expect([network.code, network.reason, network.exitCode]).toEqual(['ERR_NETWORK', 'ECONNREFUSED', 7])
    expect(new IntegrityError('tampered')).toBeInstanceOf(VaultError)
  })
})

describe('errors of another copy of the module (the proxy bundle beside tsc compose modules)', () => {
  it('keep their exit code and hint: a second copy of errors.ts is known by its mark', async () => {
    vi.resetModules()
    const secondCopy = '../../src/errors.js?second-copy'
    const copy = (await import(/* @vite-ignore */ secondCopy)) as typeof import('../../src/errors.js')
    const foreign = new copy.UsageError('PROXY_COMPOSE_POLICY x.yaml: not found', { hint: 'check the path' })
    expect(foreign instanceof UsageError).toBe(false)
    expect(isVaultError(foreign)).toBe(true)
    expect(exitCodeOf(foreign)).toBe(ExitCode.usage)
  })

  it('does not take an object that only looks like one', () => {
    const lookalike = Object.assign(new Error('x'), { exitCode: ExitCode.usage, code: 'ERR_USAGE' })
    expect(isVaultError(lookalike)).toBe(false)
    expect(exitCodeOf(lookalike)).toBe(ExitCode.unexpected)
  })
})
