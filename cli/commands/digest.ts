import { writeFile } from 'node:fs/promises'
import { digestFor } from '../../bot/commands/digest.js'
import { toConsole } from '../../bot/render/console.js'
import { UserError } from '../../bot/errors.js'
import { reportStoreUnavailable } from '../command-setup.js'
import { openSession, readSessionOptions } from '../console-session.js'
import type { DIGEST_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('digest', argv)

/** `kafka-why digest`: the digest job in a terminal. */
export async function execute({ options }: CommandInput<typeof DIGEST_OPTIONS>): Promise<number> {
  const { cluster, out, spec: specOut } = options
  const args = readSessionOptions('digest', options)
  if (typeof args === 'number') return args
  const session = await openSession('digest', args)
  if (typeof session === 'number') return session
  try {
    const names = session.ctx.config.clusters.map((c) => c.name)
    if (cluster !== undefined && !names.includes(cluster)) throw new UserError(`unknown cluster '${cluster}' (known: ${names.join(', ')})`)
    const { message, chart, spec } = await digestFor(session.ctx, cluster ?? names[0], session.ctx.now())
    console.log(toConsole(message, { color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR }))
    if (out) {
      await writeOutput(out, chart)
      console.log(`\nchart: ${out} (${chart.length} bytes)`)
    }
    if (specOut) {
      await writeOutput(specOut, `${JSON.stringify(spec, null, 2)}\n`)
      console.log(`${out ? '' : '\n'}chart spec: ${specOut} (Vega-Lite 5)`)
    }
    return 0
  } catch (err) {
    if (err instanceof UserError) {
      console.error(`kafka-why digest: ${err.message}`)
      return 2
    }
    const code = reportStoreUnavailable('kafka-why digest', err)
    if (code !== undefined) return code
    throw err
  } finally {
    await session.close()
  }
}

/** Writes an output file; a path that cannot be written is the user's to fix, said in one line. */
async function writeOutput(file: string, data: string | Buffer): Promise<void> {
  try {
    await writeFile(file, data)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    const why = e.code === 'ENOENT' ? 'no such directory' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'is a directory' : e.message
    throw new UserError(`cannot write ${file}: ${why}`)
  }
}
