import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    reporters: ['default', './test/harness/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
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
          include: ['test/adversarial/**/*.test.ts'],
          // these replay attacks against a real server, database or engine: integration project
          exclude: [
            'test/adversarial/backup/**',
            'test/adversarial/database/**',
            'test/adversarial/proxy/env-exposure.test.ts',
            'test/adversarial/proxy/env-exposure-streams.test.ts',
            'test/adversarial/proxy/client-selection.test.ts',
          ],
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
          include: [
            'test/integration/**/*.test.ts',
            'test/adversarial/backup/**/*.test.ts',
            'test/adversarial/database/**/*.test.ts',
            'test/adversarial/proxy/env-exposure.test.ts',
            'test/adversarial/proxy/env-exposure-streams.test.ts',
            'test/adversarial/proxy/client-selection.test.ts',
          ],
          globalSetup: ['test/harness/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
})
