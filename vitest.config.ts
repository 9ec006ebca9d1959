import { defineConfig } from 'vitest/config'
import LongestFirstSequencer from './test/harness/sequencer.js'

/** Tests that measure latency under load: they run last, alone, so other tests' CPU does not count. */
const measuredAlone = ['test/integration/proxy-floods.test.ts']

/**
 * Workers: one pool for every project but 'measured' (the integration files beside the others, longest
 * file first: test/harness/sequencer.ts). The files mostly wait on child processes, servers and the
 * engine, but a run of 6 at once on this 2-core machine timed tests out (CPU is what the suite runs short of: the summary prints it); 4 run at once, VAULT_TEST_WORKERS sets the pool's size.
 */
const workers = Number(process.env.VAULT_TEST_WORKERS ?? 4)

/** Every project's files report their CPU seconds to the summary (test/harness/file-cpu.ts). */
const withFileCpu = (project: { test: Record<string, unknown> }) => ({
  test: {
    ...project.test,
    setupFiles: ['test/harness/file-cpu.ts', ...((project.test.setupFiles as string[] | undefined) ?? [])],
  },
})

export default defineConfig({
  test: {
    reporters: ['default', './test/harness/summary-reporter.ts'],
    maxWorkers: workers,
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          // one worker runs many files (no fresh process per file): half the project's CPU (142 -> 72 s);
          // a file restores what it changes (env, timers, cwd: test/helpers/run-command.ts)
          isolate: false,
          // test/helpers/*.test.ts and test/harness/*.test.ts: the tests of the test helpers and harness themselves
          include: ['test/unit/**/*.test.ts', 'test/helpers/**/*.test.ts', 'test/harness/**/*.test.ts'],
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
          // `docker-compose` is the real client run from a fork server (test/harness/compose-forkserver.ts)
          setupFiles: ['test/harness/compose-shim-path.ts'],
          // beside the other projects: its files use their own compose projects, containers, databases
          // and ports on the shared engine and PostgreSQL
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
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ].map(withFileCpu),
  },
})
