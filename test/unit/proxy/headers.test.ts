/** Hop-by-hop header removal, including the headers a Connection header names. */
import { describe, expect, it } from 'vitest'
import { endToEndHeaders } from '../../../src/proxy/headers.js'

describe('endToEndHeaders', () => {
  it.each([
    [
      'keeps end-to-end headers in order',
      ['Host', 'x', 'Api-Version', '1.41'],
      ['Host', 'x', 'Api-Version', '1.41'],
    ],
    [
      'drops hop-by-hop headers in any case',
      [
        'CONNECTION',
        'keep-alive',
        'Keep-Alive',
        'timeout=5',
        'TE',
        'trailers',
        'Transfer-Encoding',
        'chunked',
        'Upgrade',
        'tcp',
        'Expect',
        '100-continue',
        'Proxy-Connection',
        'x',
        'Trailer',
        'y',
        'Ostype',
        'linux',
      ],
      ['Ostype', 'linux'],
    ],
    [
      'drops the headers a Connection header names',
      ['X-Secret', 'a', 'Connection', 'x-secret, X-Other', 'x-other', 'b', 'Date', 'd'],
      ['Date', 'd'],
    ],
  ])('%s', (_name, raw, expected) => {
    expect(endToEndHeaders(raw)).toEqual(expected)
  })
})
