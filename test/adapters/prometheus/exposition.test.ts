import { readFileSync } from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ExpositionParser, parseExposition, parseLine, type Sample } from '../../../adapters/prometheus/exposition.js'
import { FIXTURES } from './jmx-jvm.js'

// Captures of the real jmx_prometheus_javaagent attached to fixtures/KafkaMBeans.java, under its
// default format and under fixtures/kafka-lowercase-naming.yml, for the last 0.x and the first 1.x
// release. Regenerate with: npx tsx test/adapters/prometheus/capture-mbeans.ts
const CAPTURES = ['jmx-0.20.0-default.prom', 'jmx-0.20.0-kafka-lowercase-naming.prom', 'jmx-1.0.1-default.prom', 'jmx-1.0.1-kafka-lowercase-naming.prom']
const read = (f: string) => readFileSync(path.join(FIXTURES, f), 'utf8')

describe('adapters/prometheus/exposition', () => {
  it.each(CAPTURES)('parses the real exporter capture %s without a bad line', (file) => {
    const text = read(file)
    const { samples, stats, types } = parseExposition(text)
    const sampleLines = text.split('\n').filter((l) => l && !l.startsWith('#')).length
    expect(stats.badLines).toBe(0)
    expect(samples.length).toBe(sampleLines)
    expect(types.get('jvm_gc_collection_seconds')).toBe('summary')
    expect(samples.find((s) => s.name === 'process_max_fds')?.value).toBeGreaterThan(0)
  })

  it('reads the 0.x trailing comma in a label set', () => {
    const { samples } = parseExposition(read('jmx-0.20.0-default.prom'))
    const seg = samples.find((s) => s.name === 'kafka_log_Log_Value')
    expect(seg).toEqual({ name: 'kafka_log_Log_Value', labels: { name: 'NumLogSegments', topic: 'orders', partition: '0' }, value: 42 })
  })

  it.each<[string, Sample]>([
    ['kafka_why_ingest_buffered 12.47', { name: 'kafka_why_ingest_buffered', labels: {}, value: 12.47 }],
    ['kafka_why_scrapes_total{target="b1",result="ok"} 1027 1795988443523', { name: 'kafka_why_scrapes_total', labels: { target: 'b1', result: 'ok' }, value: 1027, timestampMs: 1795988443523 }],
    ['broker_lag_ratio{reason="no fetch yet"} +Inf -3982045', { name: 'broker_lag_ratio', labels: { reason: 'no fetch yet' }, value: Infinity, timestampMs: -3982045 }],
    ['log_dir_free_bytes{dir="D:\\\\kafka\\\\logs",error="cannot stat:\\n\\"logs-0\\""} 1.5e9', { name: 'log_dir_free_bytes', labels: { dir: 'D:\\kafka\\logs', error: 'cannot stat:\n"logs-0"' }, value: 1.5e9 }],
    ['x{a="1" , b = "2" ,} -Inf', { name: 'x', labels: { a: '1', b: '2' }, value: -Infinity }],
    ['om_counter_total 17 1520879607.789', { name: 'om_counter_total', labels: {}, value: 17, timestampMs: 1520879607789 }],
    ['om_exemplar_bucket{le="0.5"} 3 # {trace_id="abc"} 0.4', { name: 'om_exemplar_bucket', labels: { le: '0.5' }, value: 3 }],
    ['windows_line 1\r', { name: 'windows_line', labels: {}, value: 1 }],
  ])('parses %s', (line, sample) => {
    expect(parseLine(line)).toEqual({ kind: 'sample', sample })
  })

  it('parses NaN as a number that is not a number', () => {
    const r = parseLine('jvm_value NaN')
    expect(r.kind === 'sample' && Number.isNaN(r.sample.value)).toBe(true)
  })

  it.each([
    ['# HELP kafka_why_scrapes_total Scrapes of each exporter target, by result.', { kind: 'help', name: 'kafka_why_scrapes_total', help: 'Scrapes of each exporter target, by result.' }],
    ['# HELP esc A backslash \\\\ and a newline \\n here', { kind: 'help', name: 'esc', help: 'A backslash \\ and a newline \n here' }],
    ['# TYPE kafka_why_scrapes_total counter', { kind: 'type', name: 'kafka_why_scrapes_total', type: 'counter' }],
    ['# a free comment', { kind: 'comment' }],
    ['# EOF', { kind: 'comment' }],
    ['   ', { kind: 'blank' }],
  ])('reads the comment line %j', (line, expected) => {
    expect(parseLine(line)).toEqual(expected)
  })

  it.each([
    ['9bad_name 1', 'invalid metric name'],
    ['x{a=1} 1', 'expected quoted label value'],
    ['x{a="1} 1', 'unterminated label value'],
    ['x{a="1" b="2"} 1', 'expected , or } in label set'],
    ['x{a="1",a="2"} 1', 'duplicate label name'],
    ['x', 'missing value'],
    ['x one', 'invalid value'],
    ['x 1 2 3', 'trailing text after timestamp'],
    ['x 1 later', 'invalid timestamp'],
    ['# TYPE x sideways', 'unknown metric type'],
  ])('counts %j as bad: %s', (line, reason) => {
    expect(parseLine(line)).toEqual({ kind: 'bad', reason })
  })

  it('counts bad lines by reason and keeps every good sample around them', () => {
    const text = ['good_a 1', 'x{a=1} 1', 'good_b 2', 'x one', 'x two', 'good_c 3'].join('\n')
    const { samples, stats } = parseExposition(text)
    expect(samples.map((s) => s.name)).toEqual(['good_a', 'good_b', 'good_c'])
    expect(stats.badLines).toBe(3)
    expect(stats.badByReason).toEqual({ 'expected quoted label value': 1, 'invalid value': 2 })
    expect(stats.badExamples[0]).toEqual({ line: 2, text: 'x{a=1} 1', reason: 'expected quoted label value' })
  })

  it('skips an endless line without holding it', () => {
    const parser = new ExpositionParser(() => {})
    parser.push('huge{a="' + 'x'.repeat(100_000))
    parser.push('y'.repeat(100_000) + '"} 1\nafter 2\n')
    const stats = parser.end()
    expect(stats.badByReason).toEqual({ 'line too long': 1 })
    expect(stats.samples).toBe(1)
  })

  it('gives the same samples however the text is cut into chunks', () => {
    const text = read('jmx-1.0.1-kafka-lowercase-naming.prom')
    const whole = parseExposition(text).samples
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 30 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b)
        const got: Sample[] = []
        const parser = new ExpositionParser((s) => got.push(s))
        let last = 0
        for (const p of points) {
          parser.push(text.slice(last, p))
          last = p
        }
        parser.push(text.slice(last))
        parser.end()
        expect(got).toEqual(whole)
      }),
      { numRuns: 50 },
    )
  })

  it('never throws on arbitrary input and accounts for every line', () => {
    const alphabet = fc.constantFrom(...'ab_:{}="\\,# \t\n0.1eE+-InfNa'.split(''))
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 200 }), (chars) => {
        const text = chars.join('')
        const { samples, stats } = parseExposition(text)
        expect(samples.length).toBe(stats.samples)
        expect(stats.samples + stats.badLines).toBeLessThanOrEqual(stats.lines)
      }),
      { numRuns: 300 },
    )
  })
})
