import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { apiResources } from '../../../../src/server/http/app.js'
import type { VaultContext } from '../../../../src/server/context.js'

describe('openapi.yaml and the route table', () => {
  it('describes exactly the served paths and methods', () => {
    const context = { limits: { tokenRequestsPerMinute: 1 }, jwtSecret: randomBytes(32) } as VaultContext
    const served = apiResources(context).map((resource) => [
      resource.path.replace(/:([a-z]+)/g, '{$1}'),
      Object.keys(resource.methods)
        .map((method) => method.toLowerCase())
        .sort(),
    ])
    const document = parse(readFileSync(new URL('../../../../openapi.yaml', import.meta.url), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>
    }
    const methods = ['get', 'post', 'put', 'patch', 'delete', 'head']
    const documented = Object.entries(document.paths).map(([path, item]) => [
      path,
      Object.keys(item)
        .filter((key) => methods.includes(key))
        .sort(),
    ])
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(served))
  })
})

describe('openapi.yaml and secret templates', () => {
  type Node = { [key: string]: Node } & { type?: string }
  const document = parse(readFileSync(new URL('../../../../openapi.yaml', import.meta.url), 'utf8')) as Node
  const template = { $ref: '#/components/schemas/Template' }

  it('documents the template field wherever the server reads or writes it', () => {
    const json = (body: Node) => body.content!['application/json']!.schema!
    const { schemas, requestBodies } = document.components!
    expect(schemas!.Template!.type).toBe('boolean')
    expect(schemas!.SecretMetadata!.properties!.template).toEqual(template)
    expect(json(requestBodies!.Value!).properties!.template).toEqual(template)
    expect(json(document.paths!['/api/v1/secrets']!.post!.requestBody!).properties!.template).toEqual(
      template,
    )
    const version = document.paths!['/api/v1/secrets/{name}/versions/{version}']!.get!.responses!['200']!
    expect(json(version).properties!.template).toEqual(template)
  })
})
