import { BaseCommand } from '../../cli/base-command.js'
import { settingFlags } from '../../cli/setting-flags.js'
import { resolveProxyConfig } from '../../proxy/config.js'
import { loadComposePolicy } from '../../proxy/compose-policy/load.js'
import { serveProxyInPlace } from '../../proxy/launch.js'
import { proxySettingSpecs, settingsFromArgs } from '../../proxy/settings.js'

export default class ProxyServe extends BaseCommand<typeof ProxyServe> {
  static override summary = 'run the filtering socket proxy in front of the container engine'
  static override description =
    'Forwards only the engine API requests whose method and canonical path match a rule (first match wins). ' +
    'Built-in rules allow ping, version and info; with no rules configured the default rule list applies, ' +
    'which is NOT read-only. Every flag has a PROXY_* environment variable; a flag given on the command ' +
    'line wins. The configuration is checked first; the proxy then serves in this same process (replaced ' +
    'by a lean one without the CLI) until SIGTERM or SIGINT.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %>',
      description: 'default rules, tcp://:2375 to /var/run/docker.sock',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --preset monitoring --frontend-addr tcp://127.0.0.1:2375',
      description: 'read-only plus exec, loopback only',
    },
    {
      command:
        'PROXY_PRESET=read-only PROXY_FRONTEND_ADDR=tcp://:2375,unix:///run/proxy.sock <%= config.bin %> <%= command.id %>',
      description: 'the same settings from the environment (as in a compose file)',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> --compose-policy compose.yaml --frontend-addr unix:///run/deploy.sock',
      description:
        "only compose.yaml's project: create (nothing beyond what its services declare), start, stop, restart, remove; ps and logs. Variables: this environment, then the project's .env",
    },
    {
      command: 'PROXY_COMPOSE_POLICY=compose.yaml:compose.prod.yaml <%= config.bin %> <%= command.id %>',
      description:
        'two files merged in order, as `docker compose -f compose.yaml -f compose.prod.yaml` does; the variable is split as COMPOSE_FILE is (COMPOSE_PATH_SEPARATOR, default ":"), a flag names one file: --compose-policy "my stack/compose.yaml"',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --rules-file examples/proxy/traefik.rules --log-level 7',
      description: 'a ready-made rule file, every request logged',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> --preset read-only --learn /var/lib/proxy/learned.rules --learn-warn-every 300',
      description:
        'learn mode: forward what would be refused, and write the rules and guard allowances it needed at exit',
    },
  ]
  static override flags = settingFlags(proxySettingSpecs)

  async run(): Promise<void> {
    const settings = settingsFromArgs(this.argv, process.env)
    resolveProxyConfig(settings)
    if (settings.composePolicy?.length) loadComposePolicy(settings.composePolicy, process.env)
    await serveProxyInPlace(this.argv)
  }
}
