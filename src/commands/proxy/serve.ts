import * as Flags from '@oclif/core/flags'
import { BaseCommand } from '../../base-command.js'
import {
  defaultBackendAddr,
  defaultFrontendAddr,
  resolveProxyConfig,
  type ProxySettings,
} from '../../proxy/config.js'
import { launchProxyProcess } from '../../proxy/launch.js'
import { presetNames } from '../../proxy/presets.js'

export default class ProxyServe extends BaseCommand<typeof ProxyServe> {
  static override summary = 'run the filtering socket proxy in front of the container engine'
  static override description =
    'Forwards only the engine API requests whose method and canonical path match a rule (first match wins). ' +
    'Built-in rules allow ping, version and info; with no rules configured the default rule list applies, ' +
    'which is NOT read-only. The configuration is checked first; the proxy then runs in a lean child ' +
    'process (small V8 semi-spaces) until SIGTERM or SIGINT.'
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
      command: '<%= config.bin %> <%= command.id %> --rules-file examples/proxy/traefik.rules --log-level 7',
      description: 'a ready-made rule file, every request logged',
    },
  ]
  static override flags = {
    'backend-addr': Flags.string({
      env: 'PROXY_BACKEND_ADDR',
      summary: `engine address [default: ${defaultBackendAddr}]`,
    }),
    'backend-tls-cacert': Flags.file({
      env: 'PROXY_BACKEND_TLS_CACERT',
      summary: 'CA to verify a tcp:// engine',
    }),
    'backend-tls-cert': Flags.file({
      env: 'PROXY_BACKEND_TLS_CERT',
      summary: 'client certificate for the engine',
    }),
    'backend-tls-key': Flags.file({ env: 'PROXY_BACKEND_TLS_KEY', summary: 'client key for the engine' }),
    'frontend-addr': Flags.string({
      env: 'PROXY_FRONTEND_ADDR',
      multiple: true,
      delimiter: ',',
      summary: `listen address, repeatable: tcp://[host]:port or unix:///path?mode=0660 [default: ${defaultFrontendAddr}]`,
    }),
    'frontend-tls-cacert': Flags.file({
      env: 'PROXY_FRONTEND_TLS_CACERT',
      summary: 'CA of client certificates (mutual TLS)',
    }),
    'frontend-tls-cert': Flags.file({
      env: 'PROXY_FRONTEND_TLS_CERT',
      summary: 'server certificate (TLS on tcp frontends)',
    }),
    'frontend-tls-key': Flags.file({ env: 'PROXY_FRONTEND_TLS_KEY', summary: 'server key' }),
    'log-format': Flags.option({ options: ['text', 'json'] as const })({
      env: 'PROXY_LOG_FORMAT',
      summary: 'log line format [default: text]',
    }),
    'log-level': Flags.string({
      env: 'PROXY_LOG_LEVEL',
      summary: '0-7: 7 debug (every request), 6 info, 4 warning (refusals), 3 error [default: 6]',
    }),
    'no-builtin-rules': Flags.boolean({
      env: 'PROXY_NO_BUILTIN_RULES',
      summary: 'do not allow ping, version and info by default',
    }),
    preset: Flags.option({ options: presetNames })({ env: 'PROXY_PRESET', summary: 'a named rule set' }),
    rules: Flags.string({ env: 'PROXY_RULES', summary: 'rules, one "METHODS PATTERN" per line' }),
    'rules-file': Flags.file({ env: 'PROXY_RULES_FILE', summary: 'a file of rules' }),
    'shutdown-grace': Flags.string({
      env: 'PROXY_SHUTDOWN_GRACE',
      summary: 'seconds to let requests finish on SIGTERM [default: 10]',
    }),
  }

  async run(): Promise<void> {
    const flags = this.flags
    const settings: ProxySettings = {
      backendAddr: flags['backend-addr'],
      backendTlsCa: flags['backend-tls-cacert'],
      backendTlsCert: flags['backend-tls-cert'],
      backendTlsKey: flags['backend-tls-key'],
      frontendAddrs: flags['frontend-addr'],
      frontendTlsCa: flags['frontend-tls-cacert'],
      frontendTlsCert: flags['frontend-tls-cert'],
      frontendTlsKey: flags['frontend-tls-key'],
      logFormat: flags['log-format'],
      logLevel: flags['log-level'],
      noBuiltinRules: flags['no-builtin-rules'],
      preset: flags.preset,
      rules: flags.rules,
      rulesFile: flags['rules-file'],
      shutdownGrace: flags['shutdown-grace'],
    }
    resolveProxyConfig(settings)
    process.exitCode = await launchProxyProcess(settings)
  }
}
