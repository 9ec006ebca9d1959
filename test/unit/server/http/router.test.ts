import { describe, expect, it } from 'vitest'
import { json, type ApiRequest } from '../../../../src/server/http/api.js'
import { ApiError } from '../../../../src/server/http/http.js'
import { createRouter } from '../../../../src/server/http/router.js'

function request(method: string, path: string): ApiRequest {
  return {
    method,
    url: new URL(path, 'http://vault.invalid'),
    headers: {},
    params: {},
    origin: { ip: '127.0.0.1', requestId: 'r1' },
    body: async () => Buffer.alloc(0),
  }
}

describe('the resource router', () => {
  const route = createRouter([
    {
      path: '/api/v1/secrets/:name/versions/:version',
      methods: { GET: async (r) => json(200, r.params) },
    },
    {
      path: '/api/v1/secrets/:name',
      methods: { GET: async (r) => json(200, r.params), PUT: async () => json(200, {}) },
    },
  ])

  it('hands named, percent-decoded path parameters to the handler', async () => {
    expect((await route(request('GET', '/api/v1/secrets/A%5FB/versions/3'))).json).toEqual({
      name: 'A_B',
      version: '3',
    })
  })

  it('answers HEAD with the GET handler', async () => {
    const answer = await route(request('HEAD', '/api/v1/secrets/NAME'))
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ name: 'NAME' })
  })

  it('answers an unknown method on a known path with 405 and an Allow header', async () => {
    const answer = await route(request('DELETE', '/api/v1/secrets/NAME'))
    expect(answer.status).toBe(405)
    expect(answer.headers?.allow).toBe('GET, PUT, HEAD')
  })

  it('answers an unknown path with a 404 and a malformed escape with a 400', async () => {
    await expect(route(request('GET', '/api/v1/nothing'))).rejects.toMatchObject({ status: 404 })
    await expect(route(request('GET', '/api/v1/secrets/%E0%A4%A'))).rejects.toBeInstanceOf(ApiError)
    await expect(route(request('GET', '/api/v1/secrets/%E0%A4%A'))).rejects.toMatchObject({ status: 400 })
  })
})
