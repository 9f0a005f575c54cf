import { writeFile } from 'node:fs/promises'
import { DEFAULT_INCIDENT, openConsole } from '../../bot/console/console-context.js'
import { digestFor } from '../../bot/commands/digest.js'
import { ConfigError } from '../../bot/config.js'
import { toConsole } from '../../bot/render/console.js'
import { UserError } from '../../bot/errors.js'

const USAGE = `usage: kafka-why digest [--replay <incident dir> | --no-replay] [--config <bot.yaml>] [--cluster <name>] [--now <ISO time>] [--out <chart.png>]

Prints the daily health digest (the 24 h before --now) as the bot would post it, and writes its
chart as a PNG with --out. Default incident: test/incidents/seed-000-stw-session-expiry.`

/** `kafka-why digest`: the digest job in a terminal. */
export async function run(argv: string[]): Promise<number> {
  let replay: string | null = DEFAULT_INCIDENT
  let configPath: string | undefined
  let cluster: string | undefined
  let now: number | undefined
  let out: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      const v = argv[++i]
      if (v === undefined) throw new ConfigError([`${a} needs a value`])
      return v
    }
    try {
      if (a === '--replay') replay = next()
      else if (a === '--no-replay') replay = null
      else if (a === '--config') configPath = next()
      else if (a === '--cluster') cluster = next()
      else if (a === '--out') out = next()
      else if (a === '--now') {
        const v = next()
        now = Date.parse(v)
        if (Number.isNaN(now)) throw new ConfigError([`--now: '${v}' is not an ISO time`])
      } else if (a === '--help' || a === '-h') {
        console.log(USAGE)
        return 0
      } else throw new ConfigError([`unknown option '${a}'`])
    } catch (err) {
      console.error(`kafka-why digest: ${(err as Error).message}\n\n${USAGE}`)
      return 2
    }
  }
  let session
  try {
    session = await openConsole({ replay, configPath, now })
  } catch (err) {
    if (err instanceof ConfigError || (err as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error(`kafka-why digest: ${(err as Error).message}`)
      return 2
    }
    throw err
  }
  try {
    const names = session.ctx.config.clusters.map((c) => c.name)
    if (cluster !== undefined && !names.includes(cluster)) throw new UserError(`unknown cluster '${cluster}' (known: ${names.join(', ')})`)
    const { message, chart } = await digestFor(session.ctx, cluster ?? names[0], session.ctx.now())
    console.log(toConsole(message, { color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR }))
    if (out) {
      await writeFile(out, chart)
      console.log(`\nchart: ${out} (${chart.length} bytes)`)
    }
    return 0
  } catch (err) {
    if (err instanceof UserError) {
      console.error(`kafka-why digest: ${err.message}`)
      return 2
    }
    throw err
  } finally {
    await session.close()
  }
}
