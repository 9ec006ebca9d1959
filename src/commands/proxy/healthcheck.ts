import * as Flags from '@oclif/core/flags'
import { BaseCommand } from '../../cli/base-command.js'
import { UnreachableError } from '../../errors.js'
import { defaultFrontendAddr, parseAddress } from '../../proxy/config.js'
import { checkProxyHealth, type HealthResult } from '../../proxy/healthcheck.js'
import { settingsFromArgs } from '../../proxy/settings.js'

export default class ProxyHealthcheck extends BaseCommand<typeof ProxyHealthcheck> {
  static override summary = 'exit 0 when the proxy answers (for a container HEALTHCHECK)'
  static override description =
    'Sends GET /_ping to the first frontend address. Healthy when the proxy answers below 500; a 502 ' +
    'means it cannot reach the engine. In the lean image use `node dist/proxy/main.js healthcheck`.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'probe tcp://:2375 on loopback' },
    {
      command: '<%= config.bin %> <%= command.id %> --frontend-addr unix:///run/proxy.sock',
      description: 'probe a unix-socket frontend',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    'frontend-addr': Flags.string({
      summary: `the proxy's listen address (the first of a list) [env: PROXY_FRONTEND_ADDR] [default: ${defaultFrontendAddr}]`,
    }),
    tls: Flags.boolean({ summary: 'the frontend speaks TLS (the certificate is not verified)' }),
    timeout: Flags.integer({ summary: 'milliseconds to wait', default: 3000, min: 1 }),
  }

  async run(): Promise<HealthResult> {
    const given = this.flags['frontend-addr']
    const settings = settingsFromArgs(given === undefined ? [] : ['--frontend-addr', given], process.env)
    const address = settings.frontendAddrs?.[0] ?? defaultFrontendAddr
    const result = await checkProxyHealth(
      parseAddress(address, 'PROXY_FRONTEND_ADDR'),
      this.flags.tls,
      this.flags.timeout,
    )
    if (!result.healthy) {
      throw new UnreachableError(`the proxy at ${address} is not healthy: ${result.reason}`, {
        hint: 'check that `vault proxy serve` runs and can reach the engine',
      })
    }
    if (!this.jsonEnabled()) this.out(`healthy (${result.status})`)
    return result
  }
}
