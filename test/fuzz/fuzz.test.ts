import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { LogParser } from '../../adapters/logs/parser.js'
import { handleAction } from '../../bot/actions/handle-action.js'
import { UserError } from '../../bot/errors.js'
import { parseCommand } from '../../bot/parse-command.js'
import { parseRules, renderDiagnostics } from '../../dsl/index.js'
import { parseSignalsJsonl, validateSignal } from '../../signals/jsonl.js'
import { testContext } from '../bot/support/bot-context.js'

// A bounded fuzz run over everything that reads untrusted text: rule files, log chunks, recorded
// signals (JSONL) and Slack payloads (typed commands, button clicks). Each target runs for a fixed
// time budget (about a minute in all) with a fresh seed, printed so a failure can be replayed:
//   FUZZ_SEED=<seed> npx vitest run test/fuzz/fuzz.test.ts
// Each prints its counts: inputs tried, inputs that threw, the slowest input. Inputs are built from
// real material (rule words, lines of recorded broker logs) cut, spliced and corrupted.

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 13_000)
/**
 * A bound on one input (the fastest of three runs, so a GC pause or a busy machine does not count):
 * far above the slowest seen, while a super-linear path on these sizes takes many seconds.
 */
const SLOWEST_BOUND_MS = 2000

type Tally = { target: string; inputs: number; throws: number; firstThrow?: string; slowestMs: number; slowest: string }
const tallies: Tally[] = []

function tally(target: string): Tally {
  const t: Tally = { target, inputs: 0, throws: 0, slowestMs: 0, slowest: '' }
  tallies.push(t)
  return t
}

/** Runs one input, counting it, its time and whether it threw something it must not. */
async function attempt(t: Tally, input: unknown, body: () => unknown, allowed: (err: unknown) => boolean = () => false): Promise<void> {
  t.inputs++
  const once = async () => {
    const t0 = performance.now()
    try {
      await body()
      return { ms: performance.now() - t0, err: undefined }
    } catch (err) {
      return { ms: performance.now() - t0, err: allowed(err) ? undefined : err }
    }
  }
  const first = await once()
  if (first.err !== undefined) {
    t.throws++
    t.firstThrow ??= `${(first.err as Error)?.stack ?? String(first.err)}\n  on ${JSON.stringify(input).slice(0, 300)}`
  }
  let ms = first.ms
  for (let i = 0; i < 2 && ms > SLOWEST_BOUND_MS / 4; i++) ms = Math.min(ms, (await once()).ms)
  if (ms > t.slowestMs) {
    t.slowestMs = ms
    const text = JSON.stringify(input)
    t.slowest = `${text.length} chars: ${text.slice(0, 80)}`
  }
}

/** Calls `run` with generated inputs until the time budget is spent. */
async function fuzz<T>(arb: fc.Arbitrary<T>, run: (x: T) => Promise<void>): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arb, async (x) => {
      await run(x)
    }),
    { seed: SEED, numRuns: 10_000_000, interruptAfterTimeLimit: BUDGET_MS, markInterruptAsFailure: false },
  )
}

function check(t: Tally): void {
  expect(t.firstThrow ?? '', `${t.target}: ${t.throws} inputs threw`).toBe('')
  expect(t.slowestMs, `${t.target}: slowest input ${t.slowest}`).toBeLessThan(SLOWEST_BOUND_MS)
  expect(t.inputs).toBeGreaterThan(100)
}

afterAll(() => {
  console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} to replay), budget ${BUDGET_MS} ms per target`)
  for (const t of tallies) console.log(`fuzz ${t.target}: ${t.inputs} inputs, ${t.throws} throws, slowest ${t.slowestMs.toFixed(1)} ms (${t.slowest})`)
})

const RULE_WORDS = [
  'rule', 'when', 'then', 'cause', 'advise', 'runbook', 'severity', 'critical', 'explains', 'and', 'or', 'not', 'within', 'before',
  'after', 'of', 'for', 'by', 'over', 'count', 'rate', 'max', 'trend', 'increase', 'gc.pause', 'safepoint.sync', 'zk.session_timeout',
  'isr.shrink', 'heap.used', 'config.segment_ms', '{', '}', '(', ')', ',', 'kind', 'topic', '=', '!=', '=~', '!~', '"Full.*"', '"(a+)+b"',
  '"(?=x)"', '"["', '>', '>=', '<', '==', '3s', '5m', '1h', '33%', '2GB', '100', '-1', '"cause {topic}"', '"{"', '#', '//', '\n', '  ', '\t',
  '"', '\\', '\u0000', 'ü', '😀', 'x'.repeat(300),
]

const ruleText = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...RULE_WORDS), { maxLength: 80 }).map((w) => w.join(' ')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 400 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom('(', 'not ', 'gc.pause > 1s', ' and ', ')'), { maxLength: 400 }).map((w) => `rule a when ${w.join('')} then cause "x"`) },
)

/** Lines of recorded broker, GC and client logs, the material log inputs are cut from. */
function recordedLines(): string[] {
  const files = [
    'test/incidents/seed-000-stw-session-expiry/broker-1/server.log',
    'test/incidents/seed-000-stw-session-expiry/broker-1/gc.log',
    'test/incidents/seed-002-down-conversion-oom/broker-1001/server.log',
    'test/incidents/lab-stw/broker-1/gc.log',
    'test/incidents/lab-stw/broker-1/server.log',
    'test/incidents/healthy-day/broker-2/gc.log',
  ]
  const lines: string[] = []
  for (const f of files) {
    try {
      for (const l of readFileSync(f, 'utf8').split('\n').slice(0, 400)) if (l) lines.push(l)
    } catch {
      // a recording that moved: the others still feed the fuzzer
    }
  }
  return lines
}

describe('fuzz', () => {
  it('dsl parseRules never throws on rule files', { timeout: BUDGET_MS * 3 }, async () => {
    const t = tally('rule files')
    await fuzz(ruleText, (text) =>
      attempt(t, text, () => {
        const r = parseRules(text, 'fuzz.rules')
        renderDiagnostics(r.diagnostics, { 'fuzz.rules': text })
      }),
    )
    check(t)
  })

  it('the log parser never throws on log chunks, whatever the layout or chunking', { timeout: BUDGET_MS * 3 }, async () => {
    const lines = recordedLines()
    expect(lines.length).toBeGreaterThan(500)
    const t = tally('log chunks')
    const mutated = fc
      .tuple(fc.constantFrom(...lines), fc.nat(), fc.nat(), fc.constantFrom('', '\t', ' ', '[', ']', '\u0000', '\r', '\ufffd', '"', 'x'.repeat(5000), '1 '.repeat(2000)))
      .map(([l, a, b, junk]) => {
        const i = a % (l.length + 1)
        return l.slice(0, i) + junk + l.slice(i + (b % 20))
      })
    const text = fc.array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...lines) }, { weight: 2, arbitrary: mutated }), { minLength: 1, maxLength: 40 }).map((ls) => ls.join('\n'))
    const input = fc.record({ text, cuts: fc.array(fc.nat(), { maxLength: 6 }), format: fc.constantFrom(undefined, 'kafka', 'gc', 'client') as fc.Arbitrary<'kafka' | 'gc' | 'client' | undefined> })
    await fuzz(input, ({ text, cuts, format }) =>
      attempt(t, { text, cuts, format }, () => {
        const parser = new LogParser({ path: 'fuzz.log', cluster: 'c', broker: '1', ...(format ? { format } : {}) })
        // Chunks of whole lines, as the tailer hands them over, then the end of the file.
        const all = text.split('\n')
        let from = 0
        for (const c of [...cuts].sort((x, y) => x - y)) {
          const to = Math.min(all.length, from + (c % 10))
          if (to > from) parser.push(all.slice(from, to).join('\n') + '\n')
          from = to
        }
        parser.push(all.slice(from).join('\n'), true)
        parser.end()
      }),
    )
    check(t)
  })

  it('the JSONL reader never throws and keeps only valid signals', { timeout: BUDGET_MS * 3 }, async () => {
    const t = tally('JSONL')
    const field = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }))
    const signalish = fc.record(
      {
        name: fc.oneof(fc.constantFrom('gc.pause', 'isr.shrink', 'heap.used', 'broker.version', 'nope'), field),
        at: fc.oneof(fc.integer(), fc.constantFrom('2018-08-13T22:08:51.112-04:00', '2018-08-13 22:08', 'yesterday'), field),
        cluster: fc.oneof(fc.constant('prod'), field),
        broker: fc.oneof(fc.constantFrom('1', 1, -1, 'b 1', 'x'.repeat(100)), field),
        value: fc.oneof(fc.double(), field),
        labels: fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })), field),
        text: field,
      },
      { requiredKeys: [] },
    )
    const line = fc.oneof(signalish.map((o) => JSON.stringify(o)), fc.json(), fc.string({ unit: 'binary', maxLength: 200 }))
    await fuzz(fc.array(line, { maxLength: 30 }), (ls) =>
      attempt(t, ls, () => {
        const r = parseSignalsJsonl(ls.join('\n'), 'fuzz.jsonl')
        for (const s of r.signals) if (!validateSignal(s).ok) throw new Error(`kept an invalid signal ${JSON.stringify(s)}`)
      }),
    )
    check(t)
  })

  it('Slack payloads: commands fail only with a user-facing error, clicks never throw', { timeout: BUDGET_MS * 4 }, async () => {
    const { ctx } = await testContext({ replay: false })
    const t = tally('Slack payloads')
    const words = ['why', 'status', 'silence', 'config', 'set', 'reset', 'topic', 'group', 'broker', 'explain', 'rules', 'help', 'digest', '1', 'broker-3', 'orders', 'retention.ms', '1h', '<!channel>', '<@U0ALICE>', '&lt;', '&amp;', '<http://x|y>', 'x'.repeat(300), '😀', '\u0000']
    const commandText = fc.oneof(fc.array(fc.constantFrom(...words), { maxLength: 8 }).map((w) => w.join(' ')), fc.string({ unit: 'binary', maxLength: 300 }))
    const actionIds = ['kafka_why_broker', 'kafka_run', 'kafka_show_rule', 'kafka_silence_1h', 'kafka_config_confirm', 'kafka_config_approve', 'kafka_config_cancel', 'kafka_config_confirm:1']
    const click = fc.record({
      user: fc.constantFrom('U0ALICE', 'U0BOB', 'U0MALLORY', ''),
      channel: fc.constantFrom('C0OPS', 'C0PERF', 'C0ELSE', ''),
      actionId: fc.oneof(fc.constantFrom(...actionIds), fc.string({ maxLength: 40 })),
      value: fc.oneof(commandText, fc.string({ maxLength: 100 })),
    })
    const payload = fc.oneof(commandText.map((text) => ({ kind: 'command' as const, text })), click.map((c) => ({ kind: 'click' as const, click: c })))
    await fuzz(payload, (p) =>
      attempt(
        t,
        p,
        async () => {
          if (p.kind === 'command') parseCommand(p.text)
          else await handleAction(ctx, p.click)
        },
        (err) => err instanceof UserError,
      ),
    )
    check(t)
  })
})
