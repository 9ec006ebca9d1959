/**
 * Node reads every `--env-file` in its command line, the script's arguments included, until a `--`
 * (nodejs/node#54232), and applies the NODE_OPTIONS such a file sets. Before bin/run.js started Node as
 * `node --`, `vault render --env-file .env` ran `--require` code from the project's .env, and took the
 * file's variables into vault's own environment, before any vault code ran. vault starts Node itself
 * again in three places (the hand-over from an older Node, `restore` and `proxy serve`); each is
 * started here with a hostile env file among its arguments.
 *
 * The hostile file sets NODE_OPTIONS to preload a script that writes a marker file; the test asserts
 * the marker never appears, whatever the command then does with the flag.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { execa } from 'execa'
import { afterAll, describe, expect, it } from 'vitest'
import { runJs } from '../helpers/cli.js'

const work = mkdtempSync(join(tmpdir(), 'vault-node-env-file-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const marker = join(work, 'preloaded')
const preload = join(work, 'preload.cjs')
writeFileSync(preload, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran')\n`)
const hostile = join(work, 'hostile.env')
writeFileSync(hostile, `NODE_OPTIONS=--require ${preload}\nTAG=from-the-env-file\n`)
const compose = join(work, 'compose.yaml')
writeFileSync(compose, 'services:\n  app:\n    image: "app:${TAG:-none}"\n')

/**
 * Node 24 (this test's own) and, when there is one, the machine's older Node, which hands over to the
 * Node 24 that `make setup` installs into .tools/ when the node on PATH is older (as in CI). Where make
 * found Node 24 on PATH there is no .tools/ to hand over to, and that case says so as a skip.
 */
const nodes: [string, string][] = [['Node 24', dirname(process.execPath)]]
const handedTo = fileURLToPath(new URL('../../.tools/node_modules/.bin/node', import.meta.url))
const olderNode =
  existsSync('/usr/bin/node') &&
  Number(execFileSync('/usr/bin/node', ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' })) <
    24
const noHandOver = olderNode && !existsSync(handedTo)
if (olderNode) nodes.push(['/usr/bin/node (hands over to Node 24)', '/usr/bin'])

const commandLines: [string, string[]][] = [
  ['render --env-file', ['render', '-f', compose, '--env-file', hostile]],
  ['render --env-file=', ['render', '-f', compose, `--env-file=${hostile}`]],
  ['restore (relaunched under its V8 flags)', ['restore', '--env-file', hostile]],
  ['proxy serve (replaced by the lean proxy)', ['proxy', 'serve', '--env-file', hostile]],
]

describe.each(nodes)('bin/run.js through its shebang under %s', (_name, nodeDirectory) => {
  const skipped = nodeDirectory === '/usr/bin' && noHandOver
  it.skipIf(skipped).each(commandLines)(
    `%s: Node never reads the file${skipped ? ' (skipped: no .tools/ Node 24 to hand over to; `make setup` installs it under an older node)' : ''}`,
    async (_line, args) => {
      rmSync(marker, { force: true })
      const result = await execa(runJs, args, {
        env: { PATH: `${nodeDirectory}:${process.env.PATH}`, LANG: 'C.UTF-8', HOME: work },
        extendEnv: false,
        reject: false,
        timeout: 30_000,
      })
      expect(existsSync(marker), `${result.stdout}\n${result.stderr}`).toBe(false)
      expect(result.stderr).not.toContain('Cannot find module')
      if (args[0] === 'render') {
        // vault's own reading of the env file still interpolates with it, as compose does
        expect(result.exitCode).toBe(0)
        expect(result.stdout).toContain('image: app:from-the-env-file')
      }
    },
  )
})
