/**
 * `vault inject --watch`: renders the template once (an error then fails the command, as without
 * --watch), then follows the change feed through the shared --watch machinery (change-watch.ts). A
 * batch of changes that names a variable the template looked up loads the secrets again and renders;
 * the file is rewritten (atomically, mode 600) and --exec run only when the output really changed.
 * A failed load or a rendering error keeps the file as it is and says so. Notes name variables and
 * files, never values.
 */
import { untilAborted, watchChanges, type ChangeWatchOptions } from './change-watch.js'
import { renderingError, renderTemplateFile, writeRendered, type InjectResult } from './inject.js'

export interface InjectWatchOptions extends ChangeWatchOptions {
  templatePath: string
  outputPath: string
  /** Loads the environment's secrets (again). */
  load: () => Promise<Record<string, string>>
  hostEnv: NodeJS.ProcessEnv
  /** Withheld host variables the template may still read (`--allow-env NAME`). */
  allowEnv?: readonly string[]
  /** Runs --exec after each write; resolves with its exit code. */
  exec?: () => Promise<number>
}

/** Renders, then re-renders on change until stopped; resolves with the last result written. */
export async function injectWatching(options: InjectWatchOptions): Promise<InjectResult> {
  return watchChanges(options, async (stopping) => {
    let written: string | undefined
    let lookedUp = new Set<string>()
    let last: InjectResult | undefined

    /** Renders with `secrets`; writes and runs --exec when the text changed. Throws a rendering error. */
    const render = async (secrets: Record<string, string>): Promise<void> => {
      const rendered = await renderTemplateFile({ ...options, secrets })
      const error = renderingError(rendered.result.problems, options.templatePath)
      if (error) throw error
      for (const problem of rendered.result.problems) options.note(`Warning: ${problem.message}`)
      lookedUp = rendered.names
      if (rendered.text === written) {
        options.note(`${options.outputPath} unchanged: not rewritten`)
        return
      }
      await writeRendered(options.outputPath, rendered.text)
      written = rendered.text
      last = { ...rendered.result, written: true }
      options.note(`wrote ${options.outputPath} (mode 600)`)
      const code = await options.exec?.()
      if (code !== undefined && code !== 0) options.note(`Warning: --exec exited with ${code}`)
    }

    return {
      async run() {
        await render(await options.load())
        if (!stopping.aborted) {
          const names = [...lookedUp].sort().join(', ') || 'no variable'
          options.note(`watching ${names} for changes; stop with Ctrl-C`)
        }
        await untilAborted(stopping)
        return last!
      },
      stopped: () => ({
        template: options.templatePath,
        output: options.outputPath,
        written: false,
        variables: 0,
        problems: [],
      }),
      async onChanges(names) {
        if (stopping.aborted) return
        const used = names.filter((name) => lookedUp.has(name))
        if (used.length === 0) {
          const them = names.length > 1 ? 'them' : 'it'
          options.note(`${names.join(', ')} changed; ${options.templatePath} does not use ${them}`)
          return
        }
        options.note(`${used.join(', ')} changed: rendering ${options.templatePath} again`)
        try {
          await render(await options.load())
        } catch (error) {
          options.note(`Warning: ${(error as Error).message}; ${options.outputPath} is left as it was`)
        }
      },
    }
  })
}
