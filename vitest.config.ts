import { defineConfig } from 'vitest/config'

/** Tests that measure latency under load: they run last, alone, so other tests' CPU does not count. */
const measuredAlone = ['test/integration/proxy-floods.test.ts']

/**
 * Workers: the I/O-bound projects (they wait on child processes, servers and the engine, not the CPU)
 * run several files at once on this 2-core machine; VAULT_TEST_WORKERS overrides the pool's size.
 */
const workers = Number(process.env.VAULT_TEST_WORKERS ?? 4)

export default defineConfig({
  test: {
    reporters: ['default', './test/harness/summary-reporter.ts'],
    maxWorkers: workers,
    projects: [
      {
        test: {
          name: 'unit',
          // test/helpers/*.test.ts: the tests of the test helpers themselves
          include: ['test/unit/**/*.test.ts', 'test/helpers/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'adversarial',
          // attacks that need the real engine or a database are in test/integration/adversarial/
          include: ['test/adversarial/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/browser/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: measuredAlone,
          globalSetup: ['test/harness/global-setup.ts'],
          maxWorkers: Math.min(workers, Number(process.env.VAULT_TEST_INTEGRATION_WORKERS ?? 3)),
          // a group of its own (vitest runs groups one after another): it shares one engine and one
          // PostgreSQL, so it gets fewer workers than the projects before it
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'measured',
          include: measuredAlone,
          globalSetup: ['test/harness/global-setup.ts'],
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
})
