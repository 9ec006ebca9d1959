import { execFileSync } from 'node:child_process'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createDatabase, engineOrNull, postgresOrNull, unavailableReason } from '../helpers/components.js'

const engine = engineOrNull()
const postgres = postgresOrNull()

describe.skipIf(!engine)(`private docker engine (${unavailableReason('engine')})`, () => {
  it('runs a busybox container through the real docker client', () => {
    const output = execFileSync(
      'docker',
      ['run', '--rm', '--network', 'none', engine!.busyboxImage, 'sh', '-c', 'echo hello-from-$((6*7))'],
      { env: { ...process.env, DOCKER_HOST: engine!.dockerHost }, encoding: 'utf8' },
    )
    expect(output.trim()).toBe('hello-from-42')
  })
})

describe.skipIf(!postgres)(`private postgresql (${unavailableReason('postgres')})`, () => {
  it('answers a query through pg in a fresh database', async () => {
    const url = await createDatabase(postgres!)
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const { rows } = await client.query('SELECT current_database() AS db, 6 * 7 AS answer')
      expect(rows[0].answer).toBe(42)
      expect(url.endsWith(`/${rows[0].db}`)).toBe(true)
    } finally {
      await client.end()
    }
  })
})
