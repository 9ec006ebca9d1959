/**
 * detectComposeClient against fake clients on a private PATH: `docker compose version` is asked, the
 * v1 client is found on PATH and never run (each of its runs costs about 0.5 s of CPU); a run of either
 * leaves a mark in a file.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { composeClientAnswers, detectComposeClient } from '../../../src/process/compose.js'

const root = mkdtempSync(join(tmpdir(), 'compose-detect-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const runs = join(root, 'runs')

/** A directory with fake `docker` (answering `compose version` with `dockerExit`) and maybe `docker-compose`. */
function fakeClients(name: string, dockerExit: number, withV1: boolean, v1Exit = 0): string {
  const bin = join(root, name)
  mkdirSync(bin)
  const script = (program: string, exit: number) =>
    `#!/bin/sh\necho "${program} $*" >> ${JSON.stringify(runs)}\nexit ${exit}\n`
  writeFileSync(join(bin, 'docker'), script('docker', dockerExit))
  chmodSync(join(bin, 'docker'), 0o755)
  if (withV1) {
    writeFileSync(join(bin, 'docker-compose'), script('docker-compose', v1Exit))
    chmodSync(join(bin, 'docker-compose'), 0o755)
  }
  return bin
}

const ran = () => (existsSync(runs) ? readFileSync(runs, 'utf8').trim().split('\n') : [])

describe('detectComposeClient', () => {
  it('takes the v2 plugin when `docker compose version` answers', async () => {
    rmSync(runs, { force: true })
    const env = { PATH: fakeClients('v2', 0, true) }
    expect(await detectComposeClient(env)).toMatchObject({
      command: 'docker',
      prefix: ['compose'],
      version: 'v2',
    })
    expect(ran()).toEqual(['docker compose version'])
  })

  it('takes docker-compose (v1) found on PATH without running it', async () => {
    rmSync(runs, { force: true })
    const env = { PATH: fakeClients('v1', 1, true) }
    expect(await detectComposeClient(env)).toMatchObject({
      command: 'docker-compose',
      prefix: [],
      version: 'v1',
    })
    expect(ran()).toEqual(['docker compose version'])
  })

  it('finds none when the plugin does not answer and no docker-compose is on PATH', async () => {
    const env = { PATH: fakeClients('none', 1, false) }
    expect(await detectComposeClient(env)).toBeNull()
  })

  it('asks a client found on PATH whether it answers (what the doctor does)', async () => {
    rmSync(runs, { force: true })
    const env = { PATH: fakeClients('broken-v1', 1, true, 3) }
    const client = await detectComposeClient(env)
    expect(client?.version).toBe('v1')
    expect(await composeClientAnswers(client!, env)).toBe(false)
    expect(ran()).toEqual(['docker compose version', 'docker-compose version'])
  })
})
