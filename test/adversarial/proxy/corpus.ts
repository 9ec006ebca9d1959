/**
 * The hostile request shapes thrown at the socket proxy (rules: the built-ins plus what the `monitoring`
 * preset was when this was written: GET/HEAD on containers and images, GET/HEAD/POST on exec, GET
 * events). Every request the rules refuse carries the marker CANARY (in its target, a header or its body): the property checked
 * for every row is that the engine never receives the marker, sees exactly `engineSees`, and that every
 * answer the attacker gets echoes the attacker's own request. SOURCE: the shapes follow the classes of
 * /work/shared/docs/proxy-notes.md ("Requests that must not slip through"), PortSwigger's request
 * smuggling classes (CL.TE, TE.CL, TE.TE obfuscations) and RFC 9112 sections 6-7 and 9.
 */

/** The rules of the corpus: the `monitoring` preset as it was when the corpus was written (with exec). */
export const corpusRules = `GET %API_PREFIX_EVENTS%
GET,HEAD,POST %API_PREFIX_EXEC%(/.*)?
GET,HEAD %API_PREFIX_CONTAINERS%(/.*)?
GET,HEAD %API_PREFIX_IMAGES%(/.*)?
`

/** How the proxy handles a class of shapes (reported in examples/proxy/README.md). */
export type ShapeClass =
  | 'connection-named'
  | 'cl-te'
  | 'malformed'
  | 'pipelining'
  | 'upgrade'
  | 'expect'
  | 'http10'
  | 'target'
  | 'method'
  | 'size'

export interface HostileShape {
  name: string
  kind: ShapeClass
  /** Bytes the attacker writes, part after part. */
  parts: string[]
  /** Final responses to wait for, or (after a 101) text to wait for in the tunnel's output. */
  until: number | string
  /** Statuses of the responses the attacker gets, in order (1xx included). */
  statuses: number[]
  /** `METHOD url` the engine parses, in order: nothing else may reach it. */
  engineSees: string[]
  /** Also thrown at a real dockerd in test/integration/proxy-adversarial-engine.test.ts. */
  dockerd?: boolean
}

const client = 'X-Client: attacker\r\n'

/** A request with Host and the attacker's X-Client header; `headers` end with CRLF each. */
export function request(
  method: string,
  target: string,
  headers = '',
  body = '',
  version = 'HTTP/1.1',
): string {
  return `${method} ${target} ${version}\r\nHost: engine\r\n${client}${headers}\r\n${body}`
}

/** The body of a container that would own the host. */
const createBody =
  '{"Image":"busybox","Labels":{"CANARY":"1"},"HostConfig":{"Privileged":true,"Binds":["/:/host"]}}'
/** A complete refused request: create a privileged container with the host's root bind-mounted. */
export const smuggledCreate = request(
  'POST',
  '/v1.41/containers/create?name=CANARY',
  `Content-Type: application/json\r\nContent-Length: ${createBody.length}\r\n`,
  createBody,
)
const list = request('GET', '/v1.41/containers/json')
const listSeen = 'GET /v1.41/containers/json'
const execBody = '{"Detach":true}'
const execSeen = 'POST /v1.41/exec/abc/start'
const exec = (headers: string) => request('POST', '/v1.41/exec/abc/start', headers, execBody)

/** Headers a Connection header could name; none may change the framing or route of what is forwarded. */
const nameable = [
  'content-length',
  'Content-Length',
  'transfer-encoding',
  'host',
  'upgrade',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'expect',
  'content-type',
  'x-registry-auth',
]

const connectionNamed: HostileShape[] = nameable.map((name) => ({
  name: `Connection: ${name} on a body request, a refused request after it`,
  kind: 'connection-named',
  parts: [
    exec(`Connection: ${name}\r\nContent-Type: application/json\r\nContent-Length: ${execBody.length}\r\n`) +
      smuggledCreate,
  ],
  until: 2,
  statuses: [200, 403],
  engineSees: [execSeen],
  dockerd: name === 'content-length',
}))

const chunkedCreate = `${createBody.length.toString(16)}\r\n${createBody}\r\n0\r\n\r\n`

const clTe: HostileShape[] = [
  ['CL.TE', 'Content-Length: 6\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\nX' + smuggledCreate],
  [
    'TE.CL',
    'Transfer-Encoding: chunked\r\nContent-Length: 4\r\n',
    '5c\r\n' + smuggledCreate + '\r\n0\r\n\r\n',
  ],
  ['TE chunked with Content-Length 0', 'Transfer-Encoding: chunked\r\nContent-Length: 0\r\n', chunkedCreate],
  [
    'two different Content-Lengths',
    `Content-Length: 0\r\nContent-Length: ${smuggledCreate.length}\r\n`,
    smuggledCreate,
  ],
  ['two equal Content-Lengths', 'Content-Length: 0\r\nContent-Length: 0\r\n', smuggledCreate],
  ['Content-Length list', `Content-Length: 0, ${smuggledCreate.length}\r\n`, smuggledCreate],
  ['Content-Length with a plus sign', '+Content-Length: 0\r\nContent-Length: +0\r\n', smuggledCreate],
  ['negative Content-Length', 'Content-Length: -1\r\n', smuggledCreate],
  ['hexadecimal Content-Length', 'Content-Length: 0x0\r\n', smuggledCreate],
  ['Content-Length over 2^64', 'Content-Length: 99999999999999999999999\r\n', smuggledCreate],
  ['Content-Length with inner space', 'Content-Length: 1 5\r\n', smuggledCreate],
  ['space before the colon', 'Content-Length : 0\r\n', smuggledCreate],
  ['TE gzip', 'Transfer-Encoding: gzip\r\n', smuggledCreate],
  ['TE gzip, chunked', 'Transfer-Encoding: gzip, chunked\r\n', chunkedCreate],
  ['TE chunked, gzip', 'Transfer-Encoding: chunked, gzip\r\n', chunkedCreate],
  ['TE identity', 'Transfer-Encoding: identity\r\n', smuggledCreate],
  ['TE xchunked', 'Transfer-Encoding: xchunked\r\n', smuggledCreate],
  ['TE on two lines', 'Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n', chunkedCreate],
  ['TE folded onto a second line', 'Transfer-Encoding:\r\n chunked\r\n', chunkedCreate],
  ['TE with a vertical tab', 'Transfer-Encoding: \u000bchunked\r\n', chunkedCreate],
  ['Transfer_Encoding with an underscore', 'Transfer_Encoding: chunked\r\n', chunkedCreate],
  ['Content_Length with an underscore', `Content_Length: ${smuggledCreate.length}\r\n`, smuggledCreate],
].map(([name, headers, body]) => ({
  name: `${name!} on an allowed POST`,
  kind: 'cl-te' as const,
  parts: [request('POST', '/v1.41/exec/abc/start', headers, body)],
  until: 1,
  statuses: [400],
  engineSees: [],
  dockerd: name === 'CL.TE' || name === 'TE.CL',
}))

/** Chunked bodies that turn out malformed after the head was forwarded: the engine's request is cut. */
const badChunks: HostileShape[] = [
  ['bad chunk size', 'zz\r\n' + smuggledCreate + '\r\n0\r\n\r\n'],
  ['chunk size overflow', 'fffffffffffffffffff\r\n' + smuggledCreate],
  ['chunk longer than its size', '2\r\n' + smuggledCreate + '\r\n0\r\n\r\n'],
  ['chunk extension with a bare LF', '2;x\nab\r\n0\r\n\r\n' + smuggledCreate],
  ['Content-Length in the trailers', `2\r\nab\r\n0\r\nContent-Length: 999\r\n\r\n${smuggledCreate}`],
].map(([name, body]) => ({
  name: `${name!} in an allowed chunked POST`,
  kind: 'cl-te' as const,
  parts: [request('POST', '/v1.41/exec/abc/start', 'Transfer-Encoding: chunked\r\n', body)],
  until: 1,
  statuses: [400],
  engineSees: [`${execSeen} (cut before its end)`],
  dockerd: name === 'CL.TE' || name === 'TE.CL',
}))

const malformed: HostileShape[] = [
  ['bare LF line ends', `GET /v1.41/containers/json HTTP/1.1\nHost: engine\nX-Canary: CANARY\n\n`],
  ['bare CR in a value', `GET /v1.41/containers/json HTTP/1.1\r\nHost: engine\r\nX-A: a\rCANARY\r\n\r\n`],
  ['NUL in a value', `GET /v1.41/containers/json HTTP/1.1\r\nHost: engine\r\nX-A: a\u0000CANARY\r\n\r\n`],
  ['NUL in a name', `GET /v1.41/containers/json HTTP/1.1\r\nHost: engine\r\nX\u0000CANARY: a\r\n\r\n`],
  ['DEL in a value', `GET /v1.41/containers/json HTTP/1.1\r\nHost: engine\r\nX-A: a\u007fCANARY\r\n\r\n`],
  [
    'obs-fold in a header',
    `GET /v1.41/containers/json HTTP/1.1\r\nHost: engine\r\nX-A: a\r\n CANARY\r\n\r\n`,
  ],
  ['a header without a colon', `GET /v1.41/containers/json HTTP/1.1\r\nHost: engine\r\nCANARY\r\n\r\n`],
  ['an empty header name', `GET /v1.41/containers/json HTTP/1.1\r\nHost: engine\r\n: CANARY\r\n\r\n`],
  ['two Host headers', `GET /v1.41/containers/json?CANARY HTTP/1.1\r\nHost: engine\r\nHost: other\r\n\r\n`],
  [
    'a GET with a body',
    request('GET', '/v1.41/containers/json', `Content-Length: ${smuggledCreate.length}\r\n`, smuggledCreate),
  ],
  [
    'a GET with a chunked body',
    request('GET', '/v1.41/containers/json', 'Transfer-Encoding: chunked\r\n', chunkedCreate),
  ],
].map(([name, text]) => ({
  name: name!,
  kind: 'malformed' as const,
  parts: [text!],
  until: 1,
  statuses: [400],
  engineSees: [],
}))

const versions: HostileShape[] = [
  {
    name: 'HTTP/2.0 in an HTTP/1 request line',
    kind: 'malformed',
    parts: [request('GET', '/v1.41/containers/json?CANARY', '', '', 'HTTP/2.0')],
    until: 1,
    statuses: [505],
    engineSees: [],
  },
  {
    name: 'no version (HTTP/0.9)',
    kind: 'malformed',
    parts: ['GET /v1.41/containers/json?CANARY\r\n\r\n'],
    until: 1,
    statuses: [505],
    engineSees: [],
  },
  {
    name: "two spaces in the request line: the engine gets the proxy's own request line",
    kind: 'malformed',
    parts: ['GET  /v1.41/containers/json HTTP/1.1\r\nHost: engine\r\nX-Client: attacker\r\n\r\n'],
    until: 1,
    statuses: [200],
    engineSees: [listSeen],
  },
]

const pipelining: HostileShape[] = [
  {
    name: 'allowed, refused, allowed on one connection',
    kind: 'pipelining',
    parts: [list + request('DELETE', '/v1.41/containers/CANARY') + list],
    until: 3,
    statuses: [200, 403, 200],
    engineSees: [listSeen, listSeen],
    dockerd: true,
  },
  {
    name: 'allowed, then a refused request with a body: the connection closes after the refusal',
    kind: 'pipelining',
    parts: [list + smuggledCreate + list],
    until: 3,
    statuses: [200, 403],
    engineSees: [listSeen],
    dockerd: true,
  },
  {
    name: '50 pipelined requests run in order',
    kind: 'pipelining',
    parts: [Array.from({ length: 50 }, (_, i) => request('GET', `/v1.41/containers/json?n=${i}`)).join('')],
    until: 50,
    statuses: Array.from({ length: 50 }, () => 200),
    engineSees: Array.from({ length: 50 }, (_, i) => `GET /v1.41/containers/json?n=${i}`),
  },
  {
    name: 'a refused request split across writes between two allowed ones',
    kind: 'pipelining',
    parts: [list, smuggledCreate.slice(0, 30), smuggledCreate.slice(30) + list],
    until: 3,
    statuses: [200, 403],
    engineSees: [listSeen],
  },
  {
    name: 'a chunked allowed body followed by a refused request',
    kind: 'pipelining',
    parts: [
      request(
        'POST',
        '/v1.41/exec/abc/start',
        'Transfer-Encoding: chunked\r\n',
        `f\r\n${execBody}\r\n0\r\n\r\n`,
      ) + smuggledCreate,
    ],
    until: 2,
    statuses: [200, 403],
    engineSees: [execSeen],
  },
]

const upgradeHeaders = 'Connection: Upgrade\r\nUpgrade: tcp\r\n'
const upgrade: HostileShape[] = [
  {
    name: 'a refused upgrade followed by a smuggled request',
    kind: 'upgrade',
    parts: [request('POST', '/v1.41/containers/CANARY/attach?stream=1', upgradeHeaders) + smuggledCreate],
    until: 1,
    statuses: [403],
    engineSees: [],
    dockerd: true,
  },
  {
    name: 'a refused upgrade with a body',
    kind: 'upgrade',
    parts: [
      request('POST', '/v1.41/containers/x/attach', `${upgradeHeaders}Content-Length: 6\r\n`, 'CANARY'),
    ],
    until: 1,
    statuses: [403],
    engineSees: [],
  },
  {
    name: 'an allowed upgrade answered 200: bytes after it never reach the engine as a request',
    kind: 'upgrade',
    parts: [
      request(
        'POST',
        '/v1.41/exec/no101/start',
        `${upgradeHeaders}Content-Length: ${execBody.length}\r\n`,
        execBody,
      ) + smuggledCreate,
    ],
    until: 1,
    statuses: [200],
    engineSees: ['POST /v1.41/exec/no101/start upgrade'],
  },
  {
    name: 'an upgrade with a chunked body',
    kind: 'upgrade',
    parts: [
      request(
        'POST',
        '/v1.41/exec/abc/start',
        `${upgradeHeaders}Transfer-Encoding: chunked\r\n`,
        chunkedCreate,
      ),
    ],
    until: 1,
    statuses: [400],
    engineSees: [],
  },
  {
    name: 'an upgrade declaring more than 1 MB',
    kind: 'upgrade',
    parts: [
      request('POST', '/v1.41/exec/abc/start', `${upgradeHeaders}Content-Length: 2000000\r\n`, 'CANARY'),
    ],
    until: 1,
    statuses: [400],
    engineSees: [],
  },
  {
    name: 'an allowed upgrade: its body in parts, the tunnel only after the 101',
    kind: 'upgrade',
    parts: [
      request(
        'POST',
        '/v1.41/exec/abc/start',
        `${upgradeHeaders}Content-Length: ${execBody.length}\r\n`,
        execBody.slice(0, 5),
      ),
      execBody.slice(5) + 'tunnel-bytes',
    ],
    until: 'TUNNEL-BYTES',
    statuses: [101],
    engineSees: ['POST /v1.41/exec/abc/start upgrade'],
  },
  {
    name: 'an allowed upgrade with two Host headers',
    kind: 'upgrade',
    parts: [
      `POST /v1.41/exec/abc/start HTTP/1.1\r\nHost: engine\r\nHost: CANARY\r\n${upgradeHeaders}Content-Length: 2\r\n\r\n{}`,
    ],
    until: 1,
    statuses: [400],
    engineSees: [],
  },
  {
    name: 'an allowed upgrade with a disguised Transfer_Encoding',
    kind: 'upgrade',
    parts: [
      request(
        'POST',
        '/v1.41/exec/abc/start',
        `${upgradeHeaders}Transfer_Encoding: chunked\r\n`,
        chunkedCreate,
      ),
    ],
    until: 1,
    statuses: [400],
    engineSees: [],
  },
  {
    name: 'Upgrade on a refused path with Connection naming it twice',
    kind: 'upgrade',
    parts: [
      request('GET', '/v1.41/volumes?CANARY', 'Connection: Upgrade, Upgrade\r\nUpgrade: websocket\r\n'),
    ],
    until: 1,
    statuses: [403],
    engineSees: [],
  },
]

const expectShapes: HostileShape[] = [
  {
    name: 'Expect: 100-continue on a refused request gets no 100',
    kind: 'expect',
    parts: [
      request(
        'POST',
        '/v1.41/containers/create?name=CANARY',
        `Expect: 100-continue\r\nContent-Length: ${createBody.length}\r\n`,
      ),
      createBody,
    ],
    until: 1,
    statuses: [403],
    engineSees: [],
    dockerd: true,
  },
  {
    name: 'Expect: 100-continue on an allowed request gets 100, then the answer',
    kind: 'expect',
    parts: [
      request(
        'POST',
        '/v1.41/exec/abc/start',
        `Expect: 100-continue\r\nContent-Length: ${execBody.length}\r\n`,
      ),
      execBody,
    ],
    until: 1,
    statuses: [100, 200],
    engineSees: [execSeen],
  },
  {
    name: 'an unknown expectation',
    kind: 'expect',
    parts: [
      request(
        'POST',
        '/v1.41/containers/create?name=CANARY',
        `Expect: 200-ok\r\nContent-Length: ${createBody.length}\r\n`,
        createBody,
      ),
    ],
    until: 1,
    statuses: [417],
    engineSees: [],
  },
]

const http10: HostileShape[] = [
  {
    name: 'HTTP/1.0 keep-alive, then a refused request',
    kind: 'http10',
    parts: [
      request('GET', '/v1.41/containers/json', 'Connection: keep-alive\r\n', '', 'HTTP/1.0') +
        request('DELETE', '/v1.41/containers/CANARY', '', '', 'HTTP/1.0'),
    ],
    until: 2,
    statuses: [200, 403],
    engineSees: [listSeen],
  },
  {
    name: 'HTTP/1.0 POST without a length: what follows is the next request',
    kind: 'http10',
    parts: [
      request('POST', '/v1.41/exec/abc/start', 'Connection: keep-alive\r\n', '', 'HTTP/1.0') + smuggledCreate,
    ],
    until: 2,
    statuses: [200, 403],
    engineSees: [execSeen],
  },
]

const targets: HostileShape[] = (
  [
    ['absolute-form, allowed', 'GET', 'http://engine/v1.41/containers/json', 200, [listSeen]],
    ['absolute-form, refused', 'POST', 'http://engine/v1.41/containers/create?name=CANARY', 403, []],
    [
      'absolute-form with another authority and dot segments',
      'POST',
      'http://other:2375/v1.41/exec/../containers/create?CANARY',
      403,
      [],
    ],
    ['asterisk', 'OPTIONS', '*', 403, []],
    ['percent-encoded slash', 'POST', '/v1.41/containers%2fcreate?CANARY', 403, []],
    ['percent-encoded letters, allowed', 'GET', '/v1.41/%63ontainers/json', 200, [listSeen]],
    ['double percent-encoding', 'POST', '/v1.41/exec%252f..%252f..%252fcontainers/create?CANARY', 403, []],
    ['encoded NUL', 'GET', '/v1.41/containers/json%00CANARY', 400, []],
    ['encoded CRLF', 'GET', '/v1.41/containers/json%0d%0aX-CANARY:%201', 400, []],
    ['dot segments from an allowed prefix', 'POST', '/v1.41/exec/../containers/create?CANARY', 403, []],
    ['encoded dot segments', 'POST', '/v1.41/exec/%2e%2e/containers/create?CANARY', 403, []],
    ['dot segments above the root', 'GET', '/../../v1.41/volumes?CANARY', 403, []],
    ['backslash segments', 'POST', '/v1.41/exec\\..\\containers/create?CANARY', 403, []],
    ['encoded backslash', 'POST', '/v1.41/exec%5c..%5ccontainers/create?CANARY', 403, []],
    ['overlong UTF-8 slash', 'POST', '/v1.41/exec%c0%af..%c0%afcontainers/create?CANARY', 400, []],
    ['full-width solidus', 'POST', '/v1.41/exec%ef%bc%8f..%ef%bc%8fcontainers/create?CANARY', 403, []],
    ['repeated slashes', 'DELETE', '//v1.41//containers//CANARY', 403, []],
    ['semicolon path parameter', 'POST', '/v1.41/exec;/../containers/create?CANARY', 403, []],
    ['fragment in the target', 'POST', '/v1.41/exec/x#/../../containers/create?CANARY', 400, []],
    ['a query that looks like a path', 'POST', '/v1.41/containers/create?/v1.41/exec/CANARY', 403, []],
  ] as const
).map(([name, method, target, status, engineSees]) => ({
  name,
  kind: 'target' as const,
  parts: [request(method, target)],
  until: 1,
  statuses: [status],
  engineSees: [...engineSees],
  dockerd: name.startsWith('dot segments from') || name === 'percent-encoded slash',
}))

const methods: HostileShape[] = (
  [
    ['lower-case post', 'post', '/v1.41/exec/abc/start?CANARY', 400],
    ['lower-case get', 'get', '/v1.41/containers/json?CANARY', 400],
    ['mixed-case Post', 'Post', '/v1.41/exec/abc/start?CANARY', 400],
    ['PROPFIND', 'PROPFIND', '/v1.41/containers/json?CANARY', 403],
    ['PURGE', 'PURGE', '/v1.41/containers/json?CANARY', 403],
    ['an unknown method', 'FOO', '/v1.41/containers/json?CANARY', 400],
    ['CONNECT', 'CONNECT', 'engine:2375', 403],
    ['TRACE', 'TRACE', '/v1.41/containers/json?CANARY', 403],
    ['DELETE on an allowed prefix', 'DELETE', '/v1.41/containers/CANARY?force=1', 403],
  ] as const
).map(([name, method, target, status]) => ({
  name,
  kind: 'method' as const,
  parts: [request(method, target)],
  until: 1,
  statuses: [status],
  engineSees: [],
  dockerd: name === 'DELETE on an allowed prefix',
}))

const sizes: HostileShape[] = [
  {
    name: 'a head over 64 KiB (the cap: Docker clients send under 8 KB; 1,000 of 1 MB took 1.3 GB)',
    kind: 'size',
    parts: [request('GET', '/v1.41/containers/json?CANARY', `X-Big: ${'a'.repeat(70_000)}\r\n`)],
    until: 1,
    statuses: [431],
    engineSees: [],
  },
  {
    name: 'a head over 1 MB',
    kind: 'size',
    parts: [request('GET', '/v1.41/containers/json?CANARY', `X-Huge: ${'a'.repeat(1_100_000)}\r\n`)],
    until: 1,
    statuses: [431],
    engineSees: [],
  },
  {
    name: 'a target over 1 MB',
    kind: 'size',
    parts: [request('GET', `/v1.41/containers/json?CANARY=${'a'.repeat(1_100_000)}`)],
    until: 1,
    statuses: [431],
    engineSees: [],
  },
  {
    name: '20,000 small headers',
    kind: 'size',
    parts: [request('GET', '/v1.41/containers/json?CANARY', 'X-A: b\r\n'.repeat(20_000))],
    until: 1,
    statuses: [431],
    engineSees: [],
  },
]

/** The whole corpus. */
export const hostileShapes: HostileShape[] = [
  ...connectionNamed,
  ...clTe,
  ...badChunks,
  ...malformed,
  ...versions,
  ...pipelining,
  ...upgrade,
  ...expectShapes,
  ...http10,
  ...targets,
  ...methods,
  ...sizes,
]
