/**
 * Issue 8: `make demo`'s script runs to completion with no Docker engine, and its output shows the
 * rendered stack with masked secrets and the proxy's decisions.
 */
import { execa } from 'execa'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const demo = fileURLToPath(new URL('../../scripts/demo.sh', import.meta.url))

describe('scripts/demo.sh', () => {
  it('runs to completion and shows masked secrets and proxy decisions', async () => {
    const result = await execa('bash', [demo], {
      reject: false,
      all: true,
      timeout: 180_000,
      env: { DOCKER_HOST: 'unix:///nonexistent' },
    })
    expect(result.exitCode, result.all).toBe(0)
    const output = String(result.all)
    expect(output).toContain('19 created')
    expect(output).toMatch(/POSTGRES_PASSWORD: "\*{8}"/)
    expect(output).toContain('0 error(s)')
    expect(output).toContain('allow GET /v1.41/containers/json')
    expect(output).toContain('deny DELETE /v1.41/containers/web')
    expect(output).toContain('deny POST /v1.41/images/create')
    expect(output).toContain('demo: done')
    const console =
      /web console: (http:\/\/127\.0\.0\.1:\d+\/) {2}\(user admin, one-time password ([A-Za-z0-9]{24});/.exec(
        output,
      )
    expect(console, 'the console URL and admin password line').not.toBeNull()
    expect(output.split(console![2]!).length - 1, 'the password is printed once').toBe(1)
  })
})
