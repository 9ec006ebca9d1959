/** `vault proxy serve` in process (moved from the spawned test/integration/proxy-cli.test.ts). */
import { describe, expect, it } from 'vitest'
import ProxyServe from '../../../../src/commands/proxy/serve.js'
import { runCommand } from '../../../helpers/run-command.js'

describe('vault proxy serve', () => {
  it.each([
    [['--rules', 'GET /ok\nGET /bad('], /PROXY_RULES line 2: the pattern does not compile/],
    [['--backend-addr', 'http://x'], /PROXY_BACKEND_ADDR "http:\/\/x" is not an address/],
    [['--frontend-addr', 'tcp://:99999'], /PROXY_FRONTEND_ADDR/],
    [['--log-level', '9'], /PROXY_LOG_LEVEL "9"/],
    [['--rules-file', '/nonexistent/rules'], /cannot be read: ENOENT/],
    [['--compose-policy', '/nonexistent/compose.yaml'], /PROXY_COMPOSE_POLICY .*compose.yaml not found/],
    [['--compose-policy', 'compose.yaml', '--preset', 'monitoring'], /PROXY_COMPOSE_POLICY and PROXY_PRESET/],
    [
      ['--compose-policy', 'compose.yaml', '--learn', '/tmp/learned.rules'],
      /PROXY_COMPOSE_POLICY and PROXY_LEARN/,
    ],
    [
      ['--learn', '/tmp/learned.rules', '--learn-warn-every', '0.001'],
      /PROXY_LEARN_WARN_EVERY "0.001" is below 1 second/,
    ],
  ])('serve %j stops at startup with the reason', async (args, message) => {
    const result = await runCommand(ProxyServe, args)
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(message)
  })
})
