import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * `kafka-why bench <name> [args]`: runs one of bench/*.ts in its own process, so a benchmark's
 * memory and GC never mix with another's and each prints its ratio against its own baseline.
 */
const BENCHES: Record<string, string> = {
  dsl: 'parse + check a generated 5,000-rule file; ratio to JSON.parse of the same size',
  engine: 'ingest vs redis-benchmark, why p50/p99 vs the raw read, evaluation growth (needs Redis)',
  'store-ingest': 'signals/s into RedisStore vs redis-benchmark -P 64 -t zadd (needs Redis)',
  logs: 'log pipeline lines/s and MB/s vs grep -cE over the same ~1 GB file (--size-mb N)',
  chart: 'digest chart of 3 brokers over 24 h: spec, SVG (vega) and PNG (resvg) vs JSON.stringify of the spec',
  retention: 'Redis memory per broker-day at recorded rates and over simulated days with retention (own redis-server)',
  backtest: 'kafka-why ci backtest over 30 days of a 10-broker store: time and peak RSS vs a raw read of the same keys (own redis-server)',
  'signals-validate': 'JSONL signal lines/s: hand-written check vs the zod schema, each vs JSON.parse alone',
}

export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name === '--help' || !BENCHES[name]) {
    const list = Object.entries(BENCHES).map(([n, doc]) => `  ${n.padEnd(13)} ${doc}`)
    const out = [`usage: kafka-why bench <name> [args]`, '', ...list].join('\n')
    if (name && name !== '--help') {
      console.error(`kafka-why bench: unknown benchmark '${name}'\n\n${out}`)
      return 2
    }
    console.log(out)
    return name ? 0 : 2
  }
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
  const script = path.join(root, 'bench', `${name}.ts`)
  if (!existsSync(script)) {
    console.error(`kafka-why bench: ${script} is missing`)
    return 2
  }
  const child = spawnSync(process.execPath, ['--import', 'tsx', script, ...rest], { stdio: 'inherit', cwd: root })
  return child.status ?? 1
}
