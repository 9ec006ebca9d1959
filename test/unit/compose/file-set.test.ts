/**
 * Loading one project's compose files into one model (src/compose/file-set.ts), on real files in a
 * temporary directory: later files override earlier ones, relative paths become absolute (path.resolve
 * is the oracle), the first file that defines a service is where it is from, `extends` from another
 * file is resolved and that file read once, the references of an extended service are reported for
 * the service that extends it, and interpolation is on or off as the session says.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ComposeInputError } from '../../../src/compose/errors.js'
import { loadFileSet, servicesOf, type LoadSession } from '../../../src/compose/file-set.js'
import { thrown } from '../../helpers/thrown.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'file-set-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function write(name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

function session(interpolate = true): LoadSession {
  return {
    interpolate,
    indexing: true,
    warnings: [],
    references: [],
    serviceFiles: new Map(),
    lines: new Map(),
    filesRead: new Set(),
    includeCounts: new Map(),
    namedFiles: new Set(),
  }
}

const variables: Record<string, string> = { TAG: '1.2', DB_PASSWORD: 'CANARY-file-set-93' }
const scope = () => ({ lookup: (name: string) => variables[name], workingDir: dir, includedFrom: [] })

describe('loadFileSet', () => {
  it('merges files in order, later ones overriding, with relative paths made absolute', () => {
    const first = write(
      'compose.yml',
      'services:\n  web:\n    image: web:${TAG}\n    build: ./app\n    env_file: [web.env]\n  db:\n    image: postgres\n',
    )
    const second = write(
      'override.yml',
      'services:\n  web:\n    image: web:override\n  cache:\n    image: redis\n',
    )
    const loading = session()
    const model = loadFileSet(loading, scope(), [first, second])
    const services = servicesOf(model)
    expect(Object.keys(services).sort()).toEqual(['cache', 'db', 'web'])
    expect(services.web!.image).toBe('web:override')
    expect(services.db!.image).toBe('postgres')
    expect((services.web!.build as { context: string }).context).toBe(resolve(dir, 'app'))
    const envFile = JSON.stringify(services.web!.env_file)
    expect(envFile).toContain(resolve(dir, 'web.env'))
    expect(Object.fromEntries(loading.serviceFiles)).toEqual({ web: first, db: first, cache: second })
    expect([...loading.filesRead].sort()).toEqual([first, second].sort())
    expect(loading.lines.get(first)?.get('services.db')).toBe(6)
  })

  it('interpolates only when the session says so, and records the references either way', () => {
    const file = write(
      'compose.yml',
      'services:\n  web:\n    image: web:${TAG}\n    environment:\n      P: ${DB_PASSWORD}\n',
    )
    const on = session(true)
    expect(servicesOf(loadFileSet(on, scope(), [file])).web!.image).toBe('web:1.2')
    const off = session(false)
    expect(servicesOf(loadFileSet(off, scope(), [file])).web!.image).toBe('web:${TAG}')
    for (const loading of [on, off]) {
      const names = loading.references.map((site) => [site.name, site.service, site.file])
      expect(names).toEqual(
        expect.arrayContaining([
          ['TAG', 'web', file],
          ['DB_PASSWORD', 'web', file],
        ]),
      )
    }
  })

  it('resolves extends from another file, reads that file once, and gives its references to the extending service', () => {
    mkdirSync(join(dir, 'common'))
    const base = write(
      'common/base.yml',
      'services:\n  base:\n    image: base\n    build: ./ctx\n    environment:\n      P: ${DB_PASSWORD}\n      U: ${UNSET_IN_BASE}\n',
    )
    const file = write(
      'compose.yml',
      'services:\n  api:\n    extends: {file: common/base.yml, service: base}\n    command: serve\n' +
        '  worker:\n    extends: {file: common/base.yml, service: base}\n',
    )
    const loading = session()
    const services = servicesOf(loadFileSet(loading, scope(), [file]))
    expect(Object.keys(services).sort()).toEqual(['api', 'worker'])
    expect(services.api!.image).toBe('base')
    expect(services.api!.command).toBe('serve')
    expect(services.worker).not.toHaveProperty('extends')
    // a relative path of the base file starts from the base file's directory
    expect((services.worker!.build as { context: string }).context).toBe(resolve(dir, 'common', 'ctx'))
    expect([...loading.filesRead].sort()).toEqual([base, file].sort())
    // read once: the unset variable of the base file is warned about once, not per extending service
    expect(loading.warnings.filter((warning) => warning.message.includes('UNSET_IN_BASE'))).toHaveLength(1)
    const password = loading.references
      .filter((site) => site.name === 'DB_PASSWORD')
      .map((site) => site.service)
    expect(password.sort()).toEqual(['api', 'worker'])
  })

  it('drops the include key from the merged model', () => {
    write('other.yml', 'services:\n  other:\n    image: other\n')
    const file = write('compose.yml', 'include:\n  - other.yml\nservices:\n  web:\n    image: web\n')
    const model = loadFileSet(session(), scope(), [file])
    expect(model).not.toHaveProperty('include')
    expect(Object.keys(servicesOf(model)).sort()).toEqual(['other', 'web'])
  })

  it('refuses a file whose top level is not a mapping, naming it', () => {
    const file = write('compose.yml', '- just\n- a list\n')
    const error = thrown(() => loadFileSet(session(), scope(), [file]))
    expect(error).toBeInstanceOf(ComposeInputError)
    expect((error as ComposeInputError).file).toBe(file)
  })
})

describe('servicesOf', () => {
  it('is the services mapping, or empty', () => {
    expect(servicesOf({ services: { a: { image: 'x' } } })).toEqual({ a: { image: 'x' } })
    expect(servicesOf({})).toEqual({})
  })
})
