/** `vault proxy rules` in process (moved from the spawned test/integration/proxy-cli.test.ts). */
import { describe, expect, it } from 'vitest'
import ProxyRules from '../../../../src/commands/proxy/rules.js'
import { runCommand } from '../../../helpers/run-command.js'

describe('vault proxy rules', () => {
  it('rules --preset prints the preset and warns on stderr about what it exposes', async () => {
    const result = await runCommand(ProxyRules, ['--preset', 'management'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('GET,HEAD,POST %API_PREFIX_CONTAINERS%(/.*)?')
    expect(result.stderr).toContain('GET /containers/{id}/export is allowed')
    expect(result.stderr).toContain('environment, secrets included')
    expect(result.stdout).not.toContain('warning')
  })

  it('rules --preset read-only warns about nothing and says the environment is masked', async () => {
    const result = await runCommand(ProxyRules, ['--preset', 'read-only'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('GET,HEAD %API_PREFIX_CONTAINERS%/json')
    expect(result.stderr).not.toContain('warning')
    expect(result.stderr).toContain('its values are masked')
  })
})
