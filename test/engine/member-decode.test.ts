import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decodeMember, decodeMemberJson, signalMember, type MemberStrings } from '../../engine/store/keys.js'
import type { Signal } from '../../signals/signal.js'

/** Every signal the recorded incidents hold: real labels, sources and log text. */
function recordedSignals(): Signal[] {
  const out: Signal[] = []
  for (const dir of readdirSync('test/incidents')) {
    const file = join('test/incidents', dir, 'signals.jsonl')
    if (!existsSync(file)) continue
    for (const line of readFileSync(file, 'utf8').split('\n')) if (line.trim()) out.push(JSON.parse(line) as Signal)
  }
  return out
}

const MODES: MemberStrings[] = ['slice', 'copy']

describe.each(MODES)('decoding stored members (%s)', (strings) => {
  const both = (s: Signal) => {
    const member = signalMember(s)
    return { laidOut: decodeMember(member, s.name, s.cluster, s.broker, strings), json: decodeMemberJson(member, s.name, s.cluster, s.broker) }
  }

  it('decodes every recorded signal exactly as JSON.parse does', () => {
    const signals = recordedSignals()
    expect(signals.length).toBeGreaterThan(10_000)
    expect(signals.filter((s) => s.text).length).toBeGreaterThan(500)
    let cut = 0
    for (const s of signals) {
      const { laidOut, json } = both(s)
      expect(laidOut).toEqual(json)
      if (laidOut.labels && Object.isFrozen(laidOut.labels)) cut++
    }
    expect(cut).toBe(signals.filter((s) => s.labels && Object.keys(s.labels).length).length)
  })

  it.each([
    { case: 'quotes, backslashes and a closing brace inside label values', labels: { template: 'a},"b <*> \\"q\\" \\', z: '{' }, source: 'log:/a "b"\\c:1', text: 'say "hi" \\ done' },
    { case: 'line and paragraph separators, control characters and non-Latin text', labels: { topic: 'заказы' }, source: 'log:/x:2', text: 'tab\tnew\nline\u2028\u2029 ünïcödé \u0001' },
    { case: 'a negative, fractional, exponent value', value: -1.5e-7, source: 's' },
    { case: 'a large value', value: 1e21, source: 's' },
    { case: 'no value, labels or text', source: 'report:x' },
    { case: 'a not-a-number value (stored as null)', value: Number.NaN, source: 's' },
    { case: 'an empty source and text', source: '', text: '' },
    { case: 'text that reads "null"', source: 's', text: 'null' },
  ])('$case', ({ case: _, ...extra }) => {
    const s = { name: 'x.y', at: 1_700_000_000_123, cluster: 'c', broker: '2', ...extra } as Signal
    const { laidOut, json } = both(s)
    expect(laidOut).toEqual(json)
    // Shared, frozen labels come only from cutting the member itself, not from the JSON.parse fallback.
    if (s.labels) expect(Object.isFrozen(laidOut.labels)).toBe(true)
  })

  it.each([
    '[1,2]',
    '[1,null,null,"s",null,"extra"]',
    '[1,null,7,"s",null]',
    '[1,null,{"a":"b"},"s","t",1]',
    '[1,nul,null,"s",null]',
    '[1,null,null,"s",nulx]',
    '{"at":1}',
    '[1,null,{"a":"b}',
  ])('takes JSON.parse\'s answer for a member of another shape: %s', (member) => {
    const outcome = (f: () => Signal) => {
      try {
        return f()
      } catch (e) {
        return (e as Error).name
      }
    }
    expect(outcome(() => decodeMember(member, 'n', 'c', undefined, strings))).toEqual(outcome(() => decodeMemberJson(member, 'n', 'c', undefined)))
  })
})

describe('label sets', () => {
  it('are one frozen object per distinct set', () => {
    const decode = (at: number, labels: Record<string, string>) => decodeMember(signalMember({ name: 'isr.shrink', at, cluster: 'c', labels, source: `s${at}` }), 'isr.shrink', 'c', '1')
    const [a, b, c] = [decode(1, { partition: '0', topic: 't' }), decode(2, { partition: '0', topic: 't' }), decode(3, { partition: '1', topic: 't' })]
    expect(a.labels).toBe(b.labels)
    expect(c.labels).not.toBe(a.labels)
    expect(c.labels).toEqual({ partition: '1', topic: 't' })
    expect(Object.isFrozen(a.labels)).toBe(true)
    expect(() => {
      ;(a.labels as Record<string, string>).topic = 'u'
    }).toThrow(TypeError)
  })
})
