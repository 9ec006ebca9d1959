import { UsageError } from '../../../../src/errors.js'
import { describe, expect, it } from 'vitest'
import { checkReceiver, redactUrl, refusedRange } from '../../../../src/server/webhooks/webhook-target.js'

describe('webhook receiver addresses', () => {
  it.each([
    ['cloud metadata', '169.254.169.254', 'linkLocal'],
    ['the unspecified address (reaches local services)', '0.0.0.0', 'unspecified'],
    ['IPv4-mapped metadata', '::ffff:a9fe:a9fe', 'linkLocal'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1', 'loopback'],
    ['loopback', '127.0.0.1', 'loopback'],
    ['another loopback', '127.255.0.9', 'loopback'],
    ['IPv6 loopback', '::1', 'loopback'],
    ['IPv6 unspecified', '::', 'unspecified'],
    ['IPv4-compatible loopback (deprecated ::/96)', '::7f00:1', 'ipv4Compatible'],
    ['IPv4-compatible metadata', '::a9fe:a9fe', 'ipv4Compatible'],
    ['IPv4-compatible metadata, dotted (ipaddr.js reads it as mapped)', '::169.254.169.254', 'linkLocal'],
    ['IPv4-compatible public address (deprecated, never a receiver)', '::5db8:d822', 'ipv4Compatible'],
    ['RFC 1918 10/8', '10.0.0.1', 'private'],
    ['RFC 1918 172.16/12', '172.31.255.1', 'private'],
    ['RFC 1918 192.168/16', '192.168.1.1', 'private'],
    ['CGNAT (Alibaba metadata)', '100.100.100.200', 'carrierGradeNat'],
    ['unique-local (AWS IPv6 metadata)', 'fd00:ec2::254', 'uniqueLocal'],
    ['IPv6 link-local', 'fe80::1', 'linkLocal'],
    ['multicast', '224.0.0.1', 'multicast'],
    ['broadcast', '255.255.255.255', 'broadcast'],
    ['NAT64 of a private address', '64:ff9b::a00:1', 'rfc6052'],
    ['6to4 of a private address', '2002:a00:1::', '6to4'],
  ])('refuses %s (%s)', (_label, address, range) => {
    expect(refusedRange(address)).toBe(range)
  })

  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])('accepts public %s', (address) => {
    expect(refusedRange(address)).toBeUndefined()
  })

  it('refuses a host when any of its addresses is private (a mixed DNS answer)', async () => {
    const resolve = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ]
    await expect(
      checkReceiver(new URL('https://mixed.invalid/'), {
        allowPrivate: false,
        resolve,
        deadline: AbortSignal.timeout(5_000),
      }),
    ).rejects.toThrow(/10\.0\.0\.5 is private/)
  })

  it('hides userinfo', () => {
    expect(redactUrl('https://user:hunter2@hooks.example.com/x')).toBe('https://***@hooks.example.com/x')
    expect(redactUrl('https://hooks.example.com/x')).toBe('https://hooks.example.com/x')
  })

  it('gives up at the deadline on a name server that never answers, not as a refusal (it may resolve later)', async () => {
    const started = Date.now()
    const check = checkReceiver(new URL('https://slow.invalid/'), {
      allowPrivate: false,
      resolve: () => new Promise(() => undefined),
      deadline: AbortSignal.timeout(50),
    })
    const error = await check.catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Error)
    expect(error).not.toBeInstanceOf(UsageError)
    expect((error as Error).message).toMatch(/did not answer in time/)
    expect(Date.now() - started).toBeLessThan(2_000)
  })
})
