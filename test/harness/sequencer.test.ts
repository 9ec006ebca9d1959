import { describe, expect, it } from 'vitest'
import type { TestSpecification, Vitest } from 'vitest/node'
import LongestFirstSequencer from './sequencer.js'

const root = '/repo'

interface FakeFile {
  project: string
  path: string
  groupOrder?: number
  /** Duration in the vitest cache of the last run (ms), when the checkout has one. */
  cachedMs?: number
  size?: number
}

function sequencer(files: FakeFile[]): LongestFirstSequencer {
  const byKey = new Map(files.map((file) => [`${file.project}:${file.path}`, file]))
  const ctx = {
    config: { root },
    cache: {
      getFileTestResults: (key: string) => {
        const file = byKey.get(key)
        return file?.cachedMs === undefined ? undefined : { duration: file.cachedMs, failed: false }
      },
      getFileStats: (key: string) => ({ size: byKey.get(key)?.size ?? 0 }),
    },
  }
  return new LongestFirstSequencer(ctx as unknown as Vitest)
}

const spec = (file: FakeFile) =>
  ({
    moduleId: `${root}/${file.path}`,
    project: { name: file.project, config: { sequence: { groupOrder: file.groupOrder ?? 0 } } },
  }) as unknown as TestSpecification

async function order(files: FakeFile[]): Promise<string[]> {
  const sorted = await sequencer(files).sort(files.map(spec))
  return sorted.map((specification) => specification.moduleId.slice(root.length + 1))
}

describe('the longest-first sequencer', () => {
  it('starts the longest files of test/harness/file-seconds.json first, whatever their project', async () => {
    expect(
      await order([
        { project: 'unit', path: 'test/unit/unknown-short.test.ts', size: 90_000 },
        { project: 'adversarial', path: 'test/adversarial/client/hostile-names.test.ts' },
        { project: 'integration', path: 'test/integration/third-party-stacks.test.ts' },
        { project: 'integration', path: 'test/integration/scan.test.ts' },
      ]),
    ).toEqual([
      'test/integration/third-party-stacks.test.ts',
      'test/adversarial/client/hostile-names.test.ts',
      'test/integration/scan.test.ts',
      'test/unit/unknown-short.test.ts',
    ])
  })

  it("prefers this checkout's cache of the last run, and orders files it knows nothing of larger first", async () => {
    expect(
      await order([
        { project: 'integration', path: 'test/integration/third-party-stacks.test.ts', cachedMs: 2_000 },
        { project: 'unit', path: 'test/unit/a.test.ts', cachedMs: 9_000 },
        { project: 'unit', path: 'test/unit/small.test.ts', size: 100 },
        { project: 'unit', path: 'test/unit/large.test.ts', size: 5_000 },
      ]),
    ).toEqual([
      'test/unit/a.test.ts',
      'test/integration/third-party-stacks.test.ts',
      'test/unit/large.test.ts',
      'test/unit/small.test.ts',
    ])
  })

  it('keeps the groups one after another (sequence.groupOrder): the measured file last however long', async () => {
    expect(
      await order([
        {
          project: 'measured',
          path: 'test/integration/proxy-floods.test.ts',
          groupOrder: 1,
          cachedMs: 99_000,
        },
        { project: 'unit', path: 'test/unit/a.test.ts', cachedMs: 10 },
      ]),
    ).toEqual(['test/unit/a.test.ts', 'test/integration/proxy-floods.test.ts'])
  })
})
