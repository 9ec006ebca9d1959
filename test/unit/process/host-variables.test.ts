import { describe, expect, it } from 'vitest'
import { ExitCode } from '../../../src/errors.js'
import { controlsHost, HostVariableError, refuseHostVariables } from '../../../src/process/host-variables.js'

describe('names that control the host', () => {
  it.each([
    'PATH',
    'HOME',
    'SHELL',
    'IFS',
    'ENV',
    'BASH_ENV',
    'PS4',
    'LD_PRELOAD',
    'LD_LIBRARY_PATH',
    'DYLD_INSERT_LIBRARIES',
    'NODE_OPTIONS',
    'NODE_PATH',
    'PYTHONPATH',
    'PYTHONSTARTUP',
    'PERL5OPT',
    'PERL5LIB',
    'RUBYOPT',
    'GIT_SSH_COMMAND',
    'GIT_DIR',
    'SSH_AUTH_SOCK',
    'DOCKER_HOST',
    'DOCKER_CONFIG',
    'COMPOSE_FILE',
    'COMPOSE_PROJECT_NAME',
    'VAULT_DOMAIN',
    'VAULT_CLIENT_SECRET',
    'BASH_FUNC_docker%%',
    'PROMPT_COMMAND',
    'http_proxy',
    'HTTPS_PROXY',
  ])('%s controls the host', (name) => {
    expect(controlsHost(name)).toBe(true)
  })

  it.each([
    'DATABASE_PASSWORD',
    'JWT_SECRET',
    'APP_PATH',
    'HOMEPAGE_URL',
    'MY_DOCKER_HOST',
    'ENVIRONMENT',
    'SHELLY',
  ])('%s does not', (name) => {
    expect(controlsHost(name)).toBe(false)
  })

  it('refuses every such name at once, sorted, unless allowed by name; exit 4', () => {
    let thrown: unknown
    try {
      refuseHostVariables(['NODE_OPTIONS', 'DATABASE_PASSWORD', 'DOCKER_HOST', 'BASH_ENV'], ['BASH_ENV'])
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(HostVariableError)
    const error = thrown as HostVariableError
    expect(error.variables).toEqual(['DOCKER_HOST', 'NODE_OPTIONS'])
    expect(error.exitCode).toBe(ExitCode.auth)
    expect(error.hint).toContain('--allow-env DOCKER_HOST --allow-env NODE_OPTIONS')
    expect(() => refuseHostVariables(['DOCKER_HOST'], ['DOCKER_HOST'])).not.toThrow()
  })
})
