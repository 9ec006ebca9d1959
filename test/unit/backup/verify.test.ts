import { describe, expect, it } from 'vitest'
import { listEnvironments } from '../../../src/backup/verify.js'

describe('backup helpers: listEnvironments', () => {
  it('lists secret names and version counts per environment, without values', () => {
    const listing = listEnvironments({
      projects: [{ id: 'p1', name: 'demo' }],
      environments: [
        { project_id: 'p1', slug: 'prod' },
        { project_id: 'p1', slug: 'dev' },
      ],
      secrets: [
        { id: 's1', project_id: 'p1', environment: 'dev', name: 'B', deleted: 0 },
        { id: 's2', project_id: 'p1', environment: 'dev', name: 'A', deleted: 1 },
      ],
      secret_versions: [
        { secret_id: 's1', version: 1, ciphertext: 'v1.x' },
        { secret_id: 's1', version: 2, ciphertext: 'v1.y' },
        { secret_id: 's2', version: 1, ciphertext: null },
      ],
    })
    expect(listing).toEqual([
      {
        project: 'demo',
        environment: 'dev',
        secrets: [
          { name: 'A', versions: 1, deleted: true },
          { name: 'B', versions: 2, deleted: false },
        ],
      },
      { project: 'demo', environment: 'prod', secrets: [] },
    ])
  })
})
