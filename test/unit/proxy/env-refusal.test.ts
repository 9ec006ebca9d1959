/**
 * Requests a masking rule set refuses: top with ps_args (ps e), logs with details (--log-opt env=NAME),
 * libpod's streamed top.
 */
import { describe, expect, it } from 'vitest'
import { environmentRefusal } from '../../../src/proxy/env-refusal.js'

describe('environmentRefusal', () => {
  it.each([
    ['GET', '/v1.41/containers/db/top', '?ps_args=e', true],
    ['GET', '/containers/db/top', '?ps_args=aux+e', true],
    ['GET', '/v1.41./containers/db/top', '?ps_args=e', true],
    ['GET', '/v1.41/containers/web/db/top', '?ps_args=e', true],
    ['GET', '/v4.0.0/libpod/containers/db/top', '?ps_args=e', true],
    ['GET', '/v1.41/containers/db/top', '?ps%5Fargs=e', true],
    ['GET', '/v1.41/containers/db/top', '?ps+args=x&ps_args=-o%20pid,args', true],
    ['GET', '/v1.41/containers/db/top', '?bad%zz=1', true],
    ['GET', '/v1.41/containers/db/top', '?ps_args=auxe', true],
    ['GET', '/v1.41/containers/db/top', '?ps_args=eww', true],
    ['GET', '/v1.41/containers/db/top', '?ps_args=-ef%20e', true],
    ['GET', '/v1.41/containers/db/top', '?ps_args=-o%20pid,args', true],
    ['GET', '/v1.41/containers/db/top', '?ps_args=--format%3Dpid', true],
    ['GET', '/v1.41/containers/db/top', '?stream=1;ps_args=e', true],
    ['GET', '/v1.41/containers/db/top', '?ps_args=aux', false],
    ['GET', '/v1.41/containers/db/top', '?ps_args=-ef', false],
    ['GET', '/v1.41/containers/db/top', '?ps_args=%20aux%20', false],
    ['GET', '/v1.41/containers/db/top', '?ps_args=-eF+ww', false],
    ['GET', '/v1.41/containers/db/top', '', false],
    ['GET', '/v1.41/containers/db/top', '?ps_args=', false],
    ['GET', '/v1.41/containers/db/top', '?stream=1', false],
    ['GET', '/v1.41/containers/db/logs', '?ps_args=e', false],
    ['GET', '/v1.41/containers/db/stats', '?details=1', false],
    ['POST', '/v1.41/containers/db/top', '?ps_args=e', false],
    ['GET', '/v1.41/containers/db/logs', '?stdout=1&details=1', true],
    ['GET', '/v1.41/containers/db/logs', '?details=true', true],
    ['GET', '/v1.41/containers/db/logs', '?details=%20Yes', true],
    ['GET', '/v1.41/containers/db/logs', '?det%61ils=1', true],
    ['GET', '/v1.41./containers/web/db/logs', '?details=1', true],
    ['GET', '/v1.41/services/svc/logs', '?details=1', true],
    ['GET', '/v1.41/tasks/t1/logs', '?details=1', true],
    ['GET', '/v1.41/containers/db/logs', '?stdout=1&details=%zz', true],
    ['GET', '/v1.41/containers/db/logs', '?stdout=1&details=0', false],
    ['GET', '/v1.41/containers/db/logs', '?details=false&details=None', false],
    ['GET', '/v1.41/containers/db/logs', '?stdout=1&follow=1&tail=all', false],
    ['GET', '/v1.41/containers/db/top', '?details=1', false],
    ['GET', '/v4.0.0/libpod/containers/db/top', '?stream=true', true],
    ['GET', '/libpod/containers/db/top', '?delay=1&stream=1', true],
    ['GET', '/v4.0.0./libpod/containers/web/db/top', '?stream=yes', true],
    ['GET', '/v4.0.0/libpod/containers/db/top', '?stream=false', false],
    ['GET', '/v4.0.0/libpod/containers/db/top', '', false],
  ])('%s %s%s: refused=%s', (method, path, query, refused) => {
    expect(environmentRefusal({ redactEnv: true }, method, path, query) !== undefined).toBe(refused)
  })

  it('refuses nothing for a rule set that does not mask', () => {
    expect(
      environmentRefusal({ redactEnv: false }, 'GET', '/containers/db/top', '?ps_args=e'),
    ).toBeUndefined()
  })
})
