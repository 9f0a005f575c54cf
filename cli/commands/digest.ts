import { writeFile } from 'node:fs/promises'
import { digestFor } from '../../bot/commands/digest.js'
import { toConsole } from '../../bot/render/console.js'
import { UserError } from '../../bot/errors.js'
import { reportStoreUnavailable } from '../command-setup.js'
import { openSession, parseSessionArgs } from '../console-session.js'

const USAGE = `usage: kafka-why digest [--replay <incident dir> | --no-replay] [--config <bot.yaml>] [--cluster <name>] [--now <ISO time>] [--out <chart.png>] [--spec <chart.json>]

Prints the daily health digest (the 24 h before --now) as the bot would post it, writes its chart
as a PNG with --out and the chart's Vega-Lite spec (data included) with --spec.
Default incident: test/incidents/seed-000-stw-session-expiry.`

/** `kafka-why digest`: the digest job in a terminal. */
export async function run(argv: string[]): Promise<number> {
  let cluster: string | undefined
  let out: string | undefined
  let specOut: string | undefined
  const args = parseSessionArgs('digest', USAGE, argv, (a, next) => {
    if (a === '--cluster') cluster = next()
    else if (a === '--out') out = next()
    else if (a === '--spec') specOut = next()
    else return false
    return true
  })
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
