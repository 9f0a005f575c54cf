/**
 * Rule-language throughput: parse and check a generated 5,000-rule file and compare with
 * JSON.parse of a JSON document of the same byte size, both measured in this run on this machine.
 * Run: npx tsx bench/dsl.ts [rules] [rounds]
 */
import { formatRules, parseRules } from '../dsl/index.js'

const RULES = Number(process.argv[2] ?? 5000)
const ROUNDS = Number(process.argv[3] ?? 5)
/** JSON.parse of this size takes milliseconds; repeating it per round steadies the baseline. */
const JSON_REPEAT = 20

const CONDITIONS = [
  (i: number) => `zk.session_timeout within ${1 + (i % 9)}s of safepoint.sync > ${1 + (i % 4)}s`,
  (i: number) => `count(group.rebalance) by group over ${1 + (i % 23)}h > ${10 + (i % 50)}`,
  (i: number) => `rate(isr.shrink{topic="t${i % 97}"}) over 5m > ${1 + (i % 5)}/s and not leader.change`,
  (i: number) => `trend(heap.after_gc) over 6h > 0 and heap.used > ${1 + (i % 7)}GiB for 10m`,
  (i: number) => `config.segment_ms < ${1 + (i % 30)}m or broker.version < 2.${i % 9}.1`,
  (i: number) => `gc.pause{kind=~"Full.*"} > ${500 + i}ms before zk.session_expired within 30s`,
  (i: number) => `(request_handler.idle < ${5 + (i % 20)}% for 5m or network_processor.idle < 10%) and partitions.under_replicated > 0`,
]

/** A rule file shaped like the real rule pack: doc comments, names, every output clause. */
function generateRules(n: number): string {
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    out.push(
      [
        `# Generated rule ${i}: what the condition means and why it matters.`,
        `rule generated_${i}`,
        i % 3 === 0 ? '  severity critical' : undefined,
        `  when ${CONDITIONS[i % CONDITIONS.length](i)}`,
        `  then cause "generated cause ${i} on broker {broker}"`,
        `       advise "look at the broker logs around the match; raise the limit if needed"`,
        i % 2 === 0 ? `       explains isr.shrink, client.not_leader, leader.change` : undefined,
        `       run "config broker {broker}"`,
      ]
        .filter((l) => l !== undefined)
        .join('\n'),
    )
  }
  return `${out.join('\n\n')}\n`
}

/** A JSON document of (at least, then trimmed to exactly) `bytes` bytes with a rule-like shape. */
function generateJson(bytes: number): string {
  const items: unknown[] = []
  let size = 2
  for (let i = 0; size < bytes; i++) {
    const item = { name: `generated_${i}`, severity: i % 3 ? 'warning' : 'critical', when: CONDITIONS[i % CONDITIONS.length](i), cause: `generated cause ${i} on broker {broker}`, labels: { topic: `t${i % 97}`, partition: i % 12 }, windowMs: 30_000 + i }
    const s = JSON.stringify(item)
    size += s.length + 1
    items.push(item)
  }
  let json = JSON.stringify(items)
  while (Buffer.byteLength(json) > bytes && items.length > 1) {
    items.pop()
    json = JSON.stringify(items)
  }
  return json.padEnd(bytes, ' ')
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

function time(f: () => void): number {
  const t = performance.now()
  f()
  return performance.now() - t
}

const text = generateRules(RULES)
const bytes = Buffer.byteLength(text)
const json = generateJson(bytes)

// Warm both paths up so the JIT has compiled them before timing.
parseRules(text, 'bench.rules')
JSON.parse(json)

const parseMs: number[] = []
const jsonMs: number[] = []
const fmtMs: number[] = []
let diagnostics = 0
let parsed = 0
for (let r = 0; r < ROUNDS; r++) {
  parseMs.push(
    time(() => {
      const res = parseRules(text, 'bench.rules')
      parsed = res.rules.length
      diagnostics = res.diagnostics.length
    }),
  )
  jsonMs.push(
    time(() => {
      for (let k = 0; k < JSON_REPEAT; k++) JSON.parse(json)
    }) / JSON_REPEAT,
  )
  fmtMs.push(time(() => formatRules(text, 'bench.rules')))
}

const p = median(parseMs)
const j = median(jsonMs)
const f = median(fmtMs)
console.log(`rule file: ${RULES} rules, ${(bytes / 1024 / 1024).toFixed(2)} MiB; JSON baseline: ${(Buffer.byteLength(json) / 1024 / 1024).toFixed(2)} MiB (each round parses it ${JSON_REPEAT} times); median of ${ROUNDS} rounds`)
console.log(`parse+check: ${p.toFixed(1)} ms  (${Math.round((RULES / p) * 1000).toLocaleString('en')} rules/s, ${(bytes / 1024 / 1024 / (p / 1000)).toFixed(1)} MiB/s), ${parsed} rules, ${diagnostics} diagnostics`)
console.log(`fmt:         ${f.toFixed(1)} ms`)
console.log(`JSON.parse:  ${j.toFixed(1)} ms  (${(bytes / 1024 / 1024 / (j / 1000)).toFixed(1)} MiB/s)`)
console.log(`ratio parse+check / JSON.parse of the same size: ${(p / j).toFixed(1)}x (medians), ${(Math.min(...parseMs) / Math.min(...jsonMs)).toFixed(1)}x (fastest rounds)`)
if (parsed !== RULES || diagnostics !== 0) {
  console.error(`expected ${RULES} rules and no diagnostics`)
  process.exitCode = 1
}
