import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Rule, Text } from '../../dsl/ast.js'
import { guaranteedNames } from '../../dsl/guaranteed-names.js'
import { diagnose } from '../../engine/diagnose.js'
import { fillText } from '../../engine/interpolate.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { rules } from './parse.js'
import { sig } from './signals.js'

const shipped: Rule[] = readdirSync('rules')
  .filter((f) => f.endsWith('.rules'))
  .sort()
  .flatMap((f) => rules(readFileSync(`rules/${f}`, 'utf8'), `rules/${f}`))

const textsOf = (r: Rule): [string, Text][] => [
  ['cause', r.cause],
  ...(r.advise ? [['advise', r.advise] as [string, Text]] : []),
  ...(r.runbook ? [['runbook', r.runbook] as [string, Text]] : []),
  ...r.run.map((t, i) => [`run ${i + 1}`, t] as [string, Text]),
]

/** `{name}` spelled out in the output, where the template did not write it as a literal (`{{name}`). */
function rawPlaceholders(t: Text, out: string): string[] {
  const literal = t.parts.filter((p) => p.kind === 'literal').map((p) => (p.kind === 'literal' ? p.text : '')).join('\u0000')
  return t.parts.filter((p) => p.kind === 'ref' && out.includes(`{${p.name}}`) && !literal.includes(`{${p.name}}`)).map((p) => (p.kind === 'ref' ? p.name : ''))
}

describe('engine/interpolate on every shipped rule', () => {
  it('loads the shipped rules', () => expect(shipped.length).toBeGreaterThan(100))

  it.each(shipped.map((r) => [r.name ?? r.id, r] as const))('%s reads whole with only the names its condition guarantees', (_name, rule) => {
    const sure = guaranteedNames(rule)
    for (const [field, t] of textsOf(rule)) {
      const filled = fillText(t, (n) => (sure.has(n) ? `<${n}>` : undefined))
      expect(rawPlaceholders(t, filled.text), `${field}: ${filled.text}`).toEqual([])
      // A name that may be missing sits where its whole part can go, never in the sentence's head.
      expect(filled.headGap, `${field} of ${rule.name}: {${filled.omitted.join('}, {')}} in the head of "${t.raw}"`).toBe(false)
      if (field === 'cause') expect(filled.text.length).toBeGreaterThan(20)
    }
  })

  it.each(shipped.map((r) => [r.name ?? r.id, r] as const))('%s never prints a placeholder raw, whatever is missing', (_name, rule) => {
    for (const [field, t] of textsOf(rule)) {
      const filled = fillText(t, (n) => (n === 'broker' || n === 'cluster' ? n : undefined))
      expect(rawPlaceholders(t, filled.text), `${field}: ${filled.text}`).toEqual([])
    }
  })
})

describe('engine/interpolate leaves out what the match lacks', () => {
  it.each([
    ['a parenthesis', 'Consumers could not reach their coordinator ({error}) {n} times in 5 minutes', 'Consumers could not reach their coordinator 3 times in 5 minutes'],
    ['one part of a parenthesis', 'A pause of {p} outlived the session (timeout {limit}; not heard from for {t})', 'A pause of 9s outlived the session (not heard from for 7s)'],
    ['a later clause', 'Broker {broker} cannot reach its peers: its fetches from {leaders} fail; it drops out of every ISR', 'Broker 1 cannot reach its peers; it drops out of every ISR'],
    ['a later sentence', 'Disk of {broker} is slow. Topics {topic} wait on it. Check the device.', 'Disk of 1 is slow. Check the device.'],
    ['a value holding parentheses is not cut', 'Shrinks on {topics} (timeout {limit})', 'Shrinks on a, b, c (+2 more)'],
  ])('%s', (_name, raw, expected) => {
    const values: Record<string, string> = { broker: '1', n: '3', p: '9s', t: '7s', topics: 'a, b, c (+2 more)' }
    const [rule] = rules(`rule t when broker.shutdown then cause "x"`)
    const t: Text = { ...rule.cause, raw, parts: raw.split(/(\{[a-z.]+\})/).filter(Boolean).map((s) => (s.startsWith('{') ? { kind: 'ref', name: s.slice(1, -1), span: rule.cause.span } : { kind: 'literal', text: s })) }
    expect(fillText(t, (n) => values[n]).text).toBe(expected)
  })

  it('under_min_isr_writes_failing on the gauge alone names no topic and prints no {topic}', async () => {
    const rule = shipped.find((r) => r.name === 'under_min_isr_writes_failing')!
    const store = new MemoryStore()
    await store.append([0, 30, 60, 90, 120, 150, 180].map((s) => sig('partitions.under_min_isr', s, 2)))
    const d = await diagnose([rule], store, { cluster: 'c', broker: '1', from: 0, to: 200_000, now: 200_000, record: false })
    await store.close()
    const cause = d.causes.find((c) => c.ruleName === 'under_min_isr_writes_failing')
    expect(cause?.cause).toBeDefined()
    expect(cause!.cause).not.toContain('{')
    expect(cause!.cause).toMatch(/^Writes with acks=all are failing on broker 1: partitions have fewer in-sync replicas than min.insync.replicas/)
  })
})
