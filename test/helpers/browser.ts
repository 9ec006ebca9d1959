/**
 * Debian's chromium driven by playwright-core for the browser tests: headless, no sandbox (root in CI),
 * no network but loopback, a fresh profile per launch. `chromiumOrNull` is null when the set-up found no
 * chromium (the test must skip visibly; under VAULT_TEST_REQUIRE_COMPONENTS=1 the set-up already failed).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { inject } from 'vitest'

/** The chromium executable of this run, or null. */
export function chromiumOrNull(): string | null {
  return inject('chromium').path
}

/** Why chromium is missing, for a skip message. */
export function chromiumUnavailableReason(): string {
  return inject('chromium').unavailable ?? 'available'
}

/**
 * Launches headless chromium on a fresh profile directory (playwright passes it as --user-data-dir);
 * `close` also removes the profile.
 */
export async function launchChromium(
  executablePath: string,
  viewport: { width: number; height: number } = { width: 1200, height: 800 },
): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'vault-chromium-'))
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  return {
    browser,
    async close() {
      await browser.close().catch(() => undefined)
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
