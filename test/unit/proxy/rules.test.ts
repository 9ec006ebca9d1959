import { describe, expect, it } from 'vitest'
import { builtinRulesText, exposureWarnings, presets } from '../../../src/proxy/presets.js'
import { decide, decideTarget, parseRules, RuleSyntaxError } from '../../../src/proxy/rules.js'

const defaults = [...parseRules(builtinRulesText, 'built-in'), ...parseRules(presets.default, 'default')]

describe('parseRules', () => {
  it('reads methods, patterns, comments and CRLF line ends', () => {
    const rules = parseRules('# a comment\r\n! another\r\n\r\nGET,HEAD  /a(/.*)?  \r\nPOST /b#x\n', 'test')
    expect(rules.map((rule) => [rule.methods, rule.pattern, rule.line])).toEqual([
      [['GET', 'HEAD'], '/a(/.*)?', 4],
      [['POST'], '/b#x', 5],
    ])
  })

  // CetusGuard's rule line is `METHODS PATTERN` to the end of the line: `/a #|/b` is one pattern there
  // (it allows /b). A vault that read ` #|/b` as a comment would decide differently; it refuses instead.
  it.each(['GET /a #|/b', 'GET /a # trailing', 'GET /x/[^ #]+', 'GET /a\t#(?:)|/containers/.*'])(
    'refuses %j, whose " #" CetusGuard reads as pattern text',
    (line) => {
      expect(() => parseRules(`GET /ok\n${line}\n`, 'PROXY_RULES')).toThrow(
        'PROXY_RULES line 2: a "#" after a blank',
      )
    },
  )

  it.each([
    ['GET', 'has no pattern'],
    ['get /x', 'not a comma-separated list'],
    ['GET, HEAD /x', 'not a comma-separated list'],
    ['GET,,HEAD /x', 'not a comma-separated list'],
    ['GET /x(', 'does not compile'],
    ['GET /x[', 'does not compile'],
    ['GET %API_PREFIX_NOPE%/x', 'unknown variable %API_PREFIX_NOPE%'],
    ['GET /x)', 'does not compile'],
    ['GET %API_PREFIX%%NOT_KNOWN%', 'unknown variable %NOT_KNOWN%'],
    ['GET /_ping)|(.*', 'does not compile'],
    [String.raw`GET /a\Q.b`, String.raw`\Q without \E`],
    ['GET /x/\\C', 'invalid escape sequence'],
    ['GET\u00a0/x', 'not a comma-separated list'],
  ])('refuses %j with a line number and the reason', (line, reason) => {
    const text = `# header\nGET /ok\n${line}\n`
    expect(() => parseRules(text, 'PROXY_RULES')).toThrow(RuleSyntaxError)
    expect(() => parseRules(text, 'PROXY_RULES')).toThrow(`PROXY_RULES line 3:`)
    expect(() => parseRules(text, 'PROXY_RULES')).toThrow(reason)
  })
})

describe('anchoring and first match', () => {
  it.each([
    ['GET /a|/b', '/a', true],
    ['GET /a|/b', '/b', true],
    ['GET /a|/b', '/a/x', false],
    ['GET /a|/b', '/x/b', false],
    ['GET /containers/json', '/containers/json/extra', false],
    ['GET /containers/json', '/x/containers/json', false],
  ])('%s on %s: allowed=%s', (text, path, allowed) => {
    expect(decide(parseRules(text), 'GET', path).allowed).toBe(allowed)
  })

  it('returns the first rule that matches', () => {
    const rules = parseRules('POST /x\nGET /a(/.*)?\nGET /a/b\n')
    expect(decide(rules, 'GET', '/a/b').rule?.line).toBe(2)
    expect(decide(rules, 'GET', '/z')).toEqual({ allowed: false })
  })

  it('treats methods case-sensitively and needs the method in the list', () => {
    const rules = parseRules('GET /a')
    expect(decide(rules, 'get', '/a').allowed).toBe(false)
    expect(decide(rules, 'POST', '/a').allowed).toBe(false)
    expect(decide(rules, 'PROPFIND', '/a').allowed).toBe(false)
  })
})

describe('the default rules (built-ins in front)', () => {
  it.each([
    ['GET', '/_ping', true],
    ['HEAD', '/_ping', true],
    ['HEAD', '/v1.41/_ping', true],
    ['GET', '/v1.43/version', true],
    ['GET', '/info', true],
    ['POST', '/version', false],
    ['GET', '/v1.41/events', true],
    ['GET', '/v1.41/containers/json', true],
    ['POST', '/v1.41/containers/abc/start', true],
    ['POST', '/v1.41/containers/create', true],
    ['POST', '/v1.41/containers/abc/exec', true],
    ['POST', '/v1.41/exec/0123abcd/start', true],
    ['GET', '/v1.41/exec/0123abcd/json', true],
    ['DELETE', '/v1.41/containers/abc', false],
    ['PUT', '/v1.41/containers/abc/archive', false],
    ['POST', '/v1.41/images/create', false],
    ['POST', '/v1.41/images/busybox/push', false],
    ['GET', '/v1.41/images/json', true],
    ['GET', '/v1.41/volumes', true],
    ['DELETE', '/v1.41/volumes/x', false],
    ['POST', '/v1.41/networks/create', false],
    ['GET', '/v1.41/swarm', false],
    ['GET', '/vx/containers/json', false],
    ['GET', '/v1.41.2/containers/json', true],
    ['GET', '/v/containers/json', false],
    ['GET', '/containersx', false],
  ])('%s %s: allowed=%s', (method, path, allowed) => {
    expect(decide(defaults, method, path).allowed).toBe(allowed)
  })
})

describe('decideTarget: matching on the canonical path', () => {
  it.each([
    ['/v1.41/containers/json?all=1', true, '/v1.41/containers/json'],
    ['/v1.41/containers/../images/create', false, '/v1.41/images/create'],
    ['/v1.41/containers/%2e%2e/images/create', false, '/v1.41/images/create'],
    ['/v1.41/containers/x/..%2f..%2fimages%2fcreate', false, '/v1.41/images/create'],
    ['/v1.41/containers/%252e%252e/images/create', true, '/v1.41/containers/%2e%2e/images/create'],
    ['//v1.41//containers//json', true, '/v1.41/containers/json'],
    ['/v1.41/containers/json/', true, '/v1.41/containers/json/'],
    ['/../../v1.41/images/create', false, '/v1.41/images/create'],
    ['/v1.41/CONTAINERS/x/start', false, '/v1.41/CONTAINERS/x/start'],
    ['/v1.41/containers/x;/../../images/create', false, '/v1.41/images/create'],
    ['http://engine/v1.41/containers/x/start', true, '/v1.41/containers/x/start'],
    ['http://engine/v1.41/images/create', false, '/v1.41/images/create'],
    ['/v1.41/containers\\..\\images/create', false, '/v1.41/containers\\..\\images/create'],
    ['/v1.41/containers/x\\..\\..\\images/create', true, '/v1.41/containers/x\\..\\..\\images/create'],
  ])('POST %s: allowed=%s on %s', (target, allowed, canonicalPath) => {
    const decision = decideTarget(defaults, 'POST', target)
    expect(decision.valid && decision.canonicalPath).toBe(canonicalPath)
    expect(decision.allowed).toBe(allowed)
  })

  it.each([
    ['CONNECT', 'engine:2375', 'CONNECT'],
    ['OPTIONS', '*', '"*"'],
    ['GET', '/_ping%zz', 'percent-escape'],
    ['GET', '/_ping%', 'percent-escape'],
    ['GET', '/_ping%c0%af', 'UTF-8'],
    ['GET', '/_ping%ff', 'UTF-8'],
    ['GET', '/_ping%0a', 'control character'],
    ['GET', '/_ping%00', 'control character'],
    ['GET', '/_ping#x', '"#"'],
    ['GET', 'no-slash', 'not a path'],
  ])('%s %s is invalid (%s)', (method, target, reason) => {
    const decision = decideTarget(defaults, method, target)
    expect(decision.allowed).toBe(false)
    expect(decision.valid).toBe(false)
    if (!decision.valid) expect(decision.reason).toContain(reason)
  })
})

describe('presets', () => {
  const load = (name: keyof typeof presets) => parseRules(presets[name], name)
  it.each([
    ['read-only', 'GET', '/v1.41/containers/json', true],
    ['read-only', 'GET', '/v1.41/events', false],
    ['read-only', 'POST', '/v1.41/containers/x/start', false],
    ['read-only', 'GET', '/v1.41/volumes', false],
    ['monitoring', 'GET', '/v1.41/events', true],
    ['monitoring', 'POST', '/v1.41/exec/abc/start', false],
    ['monitoring', 'POST', '/v1.41/containers/x/exec', false],
    ['monitoring', 'GET', '/v1.41/containers/x/export', false],
    ['monitoring', 'GET', '/v1.41/containers/x/archive', false],
    ['monitoring', 'GET', '/v1.41/containers/web/json', true],
    ['monitoring', 'GET', '/v1.41/containers/web/logs', true],
    ['read-only', 'GET', '/v1.41/containers/web/export', false],
    ['read-only', 'HEAD', '/v1.41/containers/web/archive', false],
    ['read-only', 'GET', '/v1.41/containers/web/attach/ws', false],
    ['read-only', 'GET', '/v1.41/containers/web/stats', true],
    ['true-read-only', 'GET', '/v1.41/exec/abc/json', false],
    ['true-read-only', 'GET', '/v1.41/containers/web/archive', false],
    ['management', 'POST', '/v1.41/containers/x/exec', true],
    ['monitoring', 'POST', '/v1.41/containers/x/stop', false],
    ['management', 'POST', '/v1.41/containers/x/stop', true],
    ['management', 'GET', '/v1.41/networks', false],
    ['management', 'POST', '/v1.41/images/create', false],
    ['true-read-only', 'GET', '/v1.41/networks', true],
    ['true-read-only', 'HEAD', '/v1.41/events', false],
    ['true-read-only', 'POST', '/v1.41/exec/abc/start', false],
    ['fine-grained', 'POST', '/v1.41/containers/web/restart', true],
    ['fine-grained', 'POST', '/v1.41/containers/web/kill', false],
    ['fine-grained', 'GET', '/v1.41/containers/web/export', false],
    ['fine-grained', 'GET', '/v1.41/containers/web/logs', true],
  ] as const)('%s: %s %s allowed=%s', (name, method, path, allowed) => {
    expect(decide(load(name), method, path).allowed).toBe(allowed)
  })

  it.each([
    ['read-only', ['json']],
    ['true-read-only', ['json']],
    ['management', ['export', 'archive', '/attach ', 'create', '/exec']],
    ['fine-grained', ['json']],
  ] as const)('%s warns about %j', (name, fragments) => {
    const warnings = exposureWarnings(load(name)).join('\n') + '\n'
    for (const fragment of fragments) expect(warnings).toContain(fragment)
  })

  it.each(['read-only', 'true-read-only', 'monitoring', 'fine-grained'] as const)(
    '%s does not warn about export, archive, attach or exec',
    (name) => {
      expect(exposureWarnings(load(name)).join('\n')).not.toMatch(/export|archive|attach|exec/)
    },
  )

  it('does not warn about inspect when the environment is masked', () => {
    expect(exposureWarnings(load('read-only'), true)).toEqual([])
  })

  it('the fine-grained preset does not warn about export or archive', () => {
    expect(exposureWarnings(load('fine-grained')).join('\n')).not.toMatch(/export|archive/)
  })
})

/** SOURCE: hectorm/cetusguard cetusguard/rule_test.go, TestBuildValidRules and TestBuildInvalidRules. */
describe("CetusGuard's rule-line tests", () => {
  it.each([
    ['! Comment\nGET,HEAD %API_PREFIX%/test01\n', '/v1.41/test01'],
    ['! Comment\r\nGET,HEAD %API_PREFIX%/test02\r\n', '/test02'],
    ['\n\n\n! Comment\n\n\nGET,HEAD %API_PREFIX%/test03\n\n\n', '/v1/test03'],
    [' \t ! Comment\n \t GET,HEAD \t %API_PREFIX%/test04 \t ', '/v9.9/test04'],
  ])('builds one GET,HEAD rule from %j', (text, path) => {
    const rules = parseRules(text)
    expect(rules.map((rule) => rule.methods)).toEqual([['GET', 'HEAD']])
    expect(decide(rules, 'HEAD', path).allowed).toBe(true)
  })

  it.each([
    ['%API_PREFIX%/test01'],
    [', %API_PREFIX%/test02'],
    ['GET, %API_PREFIX%/test03'],
    ['GET,HEAD, %API_PREFIX%/test04'],
    ['GET %API_PREFIX%/[9-0]+/test05'],
    ['GET\n%API_PREFIX%/test07'],
    ['GET\r\n%API_PREFIX%/test08'],
  ])('refuses %j', (text) => {
    expect(() => parseRules(text)).toThrow(RuleSyntaxError)
  })

  it('reads the three rules of TestBuildRulesFromFilePath', () => {
    expect(parseRules('\n! Comment\nGET /.+\r\nGET /.+\r\nGET /.+')).toHaveLength(3)
  })

  it('keeps blanks other than space and tab inside the pattern, as CetusGuard does', () => {
    const rules = parseRules('GET /a\u00a0')
    expect(decide(rules, 'GET', '/a\u00a0').allowed).toBe(true)
    expect(decide(rules, 'GET', '/a').allowed).toBe(false)
  })
})

describe('read-only presets and image search', () => {
  // /images/search?term=HOST:PORT/x makes the engine connect to any address; its errors tell open
  // ports from closed ones, so a read-only client could scan the engine's network with it.
  it.each(['read-only', 'monitoring', 'true-read-only'] as const)(
    '%s refuses GET /images/search (the engine would connect where the client says)',
    (name) => {
      const rules = parseRules(presets[name], name)
      for (const target of ['/images/search?term=127.0.0.1:22/x', '/v1.41/images/search', '/images/search/'])
        expect(decideTarget(rules, 'GET', target).allowed, target).toBe(false)
      expect(decideTarget(rules, 'GET', '/v1.41/images/json').allowed).toBe(true)
      expect(decideTarget(rules, 'GET', '/v1.41/images/busybox:latest/json').allowed).toBe(true)
    },
  )
})

describe('long API-version prefixes', () => {
  const rules = [...parseRules(builtinRulesText, 'built-in'), ...parseRules(presets.monitoring, 'monitoring')]

  // Every rule's (?:/v[0-9]+(?:\.[0-9]+)*)? backtracked once per dot of a long prefix that failed to
  // match: a 1 MB /v1.1.1…/x held the single thread 0.7 s. Moby's own versions are a few characters.
  it.each([
    ['/v' + '1.'.repeat(500_000) + '1/x'],
    ['/v' + '1.'.repeat(500_000) + '1/containers/json'],
    ['/v' + '0'.repeat(65) + '/_ping'],
    ['/v1.41' + '.0'.repeat(40) + '/containers/json'],
  ])('refuses a version prefix over 64 characters as invalid (%#)', (target) => {
    const decision = decideTarget(rules, 'GET', target)
    expect(decision.valid).toBe(false)
    expect(decision.valid || decision.reason).toBe('the API version in the path is longer than 64 characters')
  })

  it.each(['/v1.41/containers/json', '/v1.41.0.0/_ping', '/v' + '1'.repeat(64) + '/_ping', '/version'])(
    'still decides %s',
    (target) => {
      expect(decideTarget(rules, 'GET', target).allowed).toBe(true)
    },
  )
})
