import { describe, expect, it } from 'vitest'
import type { Cond, Rule } from '../../dsl/ast.js'
import { factRefsOfRule, parseRules, signalsOfRule, signalUsesOfRule } from '../../dsl/index.js'

/** A compact, readable shape of a condition: what the parser understood, without spans. */
function shape(c: Cond): string {
  switch (c.kind) {
    case 'stream': {
      const labels = c.atom.labels.map((l) => `${l.name}${l.op}${l.value}`).join(',')
      let s = c.atom.signal + (labels ? `{${labels}}` : '')
      if (c.compare) s += `${c.compare.op}${c.compare.value.value}:${c.compare.value.dimension}`
      if (c.forMs !== undefined) s += ` for ${c.forMs}`
      return s
    }
    case 'temporal':
      return `${c.op}[${c.windowMs}](${shape(c.left)}, ${shape(c.right)})`
    case 'aggregate':
      return `${c.fn}(${shape({ kind: 'stream', atom: c.atom, span: c.span })})${c.by.length ? ` by ${c.by.join(',')}` : ''} over ${c.overMs} ${c.compare.op}${c.compare.value.value}:${c.compare.value.dimension}`
    case 'not':
      return `not(${shape(c.operand)})`
    case 'group':
      return `(${shape(c.inner)})`
    case 'and':
    case 'or':
      return `${c.kind}(${c.operands.map(shape).join(', ')})`
  }
}

function one(src: string): Rule {
  const { rules, diagnostics } = parseRules(src, 't.rules')
  const errors = diagnostics.filter((d) => d.severity === 'error')
  expect(errors, JSON.stringify(errors)).toEqual([])
  expect(rules).toHaveLength(1)
  return rules[0]
}

describe('dsl/parser', () => {
  it('parses the design card sentence exactly as written', () => {
    const r = one('when zk.session_timeout within 5s of safepoint.sync > 2s then cause "STW pause"')
    expect(shape(r.when)).toBe('within[5000](zk.session_timeout, safepoint.sync>2000:duration)')
    expect(r.cause.raw).toBe('STW pause')
    expect(r.id).toBe('t.rules#L1')
    expect(r.name).toBeUndefined()
    expect(r.severity).toBe('warning')
  })

  it.each([
    ['bare atom', 'isr.shrink', 'isr.shrink'],
    ['label equals', 'isr.shrink{topic="orders"}', 'isr.shrink{topic=orders}'],
    ['several labels', 'isr.shrink{topic="orders", partition!="0"}', 'isr.shrink{topic=orders,partition!=0}'],
    ['regex label', 'gc.pause{kind=~"Full.*"}', 'gc.pause{kind=~Full.*}'],
    ['negated regex label', 'gc.pause{kind!~"Young.*"}', 'gc.pause{kind!~Young.*}'],
    ['keyword as label name', 'gc.pause{cause="Allocation Failure"} > 1s', 'gc.pause{cause=Allocation Failure}>1000:duration'],
    ['empty label set', 'isr.shrink{}', 'isr.shrink'],
    ['seconds', 'safepoint.sync > 2s', 'safepoint.sync>2000:duration'],
    ['milliseconds', 'safepoint.sync >= 500ms', 'safepoint.sync>=500:duration'],
    ['nanoseconds', 'safepoint.sync < 10ns', `safepoint.sync<${10 * 1e-6}:duration`],
    ['microseconds', 'safepoint.sync <= 5us', 'safepoint.sync<=0.005:duration'],
    ['minutes', 'config.segment_ms < 1m', 'config.segment_ms<60000:duration'],
    ['hours', 'config.retention_ms == 2h', 'config.retention_ms==7200000:duration'],
    ['days', 'config.retention_ms != 1d', 'config.retention_ms!=86400000:duration'],
    ['decimal duration', 'safepoint.sync > 1.5s', 'safepoint.sync>1500:duration'],
    ['GiB', 'heap.after_gc > 3GiB', `heap.after_gc>${3 * 1024 ** 3}:bytes`],
    ['MiB', 'heap.used > 512MiB', `heap.used>${512 * 1024 ** 2}:bytes`],
    ['KB', 'config.segment_bytes < 100KB', 'config.segment_bytes<100000:bytes'],
    ['B', 'config.segment_bytes < 10B', 'config.segment_bytes<10:bytes'],
    ['percent', 'request_handler.idle < 20%', 'request_handler.idle<0.2:ratio'],
    ['rate per second', 'isr.shrink_rate > 2/s', 'isr.shrink_rate>2:rate'],
    ['rate per minute', 'gc.count > 120/m', 'gc.count>2:rate'],
    ['plain number', 'partitions.offline > 0', 'partitions.offline>0:count'],
    ['three-part version', 'broker.version < 2.2.1', 'broker.version<2002001:version'],
    ['four-part version', 'broker.version == 0.10.2.1', 'broker.version==10002.001:version'],
    ['sustained', 'request_handler.idle < 20% for 5m', 'request_handler.idle<0.2:ratio for 300000'],
    ['within … of', 'zk.session_timeout within 5s of safepoint.sync > 2s', 'within[5000](zk.session_timeout, safepoint.sync>2000:duration)'],
    ['before … within', 'isr.shrink before client.not_leader within 30s', 'before[30000](isr.shrink, client.not_leader)'],
    ['after … within', 'leader.change after zk.session_expired within 1m', 'after[60000](leader.change, zk.session_expired)'],
    ['temporal with comparisons both sides', 'gc.pause > 1s within 10s of zk.session_timeout > 6s', 'within[10000](gc.pause>1000:duration, zk.session_timeout>6000:duration)'],
    ['count by over', 'count(group.rebalance) by group over 1h > 30', 'count(group.rebalance) by group over 3600000 >30:count'],
    ['count by two labels', 'count(isr.shrink) by topic, partition over 10m > 3', 'count(isr.shrink) by topic,partition over 600000 >3:count'],
    ['rate', 'rate(isr.shrink) over 5m > 2/s', 'rate(isr.shrink) over 300000 >2:rate'],
    ['max', 'max(gc.pause) over 1h > 5s', 'max(gc.pause) over 3600000 >5000:duration'],
    ['min', 'min(request_handler.idle) over 10m < 10%', 'min(request_handler.idle) over 600000 <0.1:ratio'],
    ['avg', 'avg(heap.used) over 1h > 3GiB', `avg(heap.used) over 3600000 >${3 * 1024 ** 3}:bytes`],
    ['sum', 'sum(gc.pause) over 1m > 10s', 'sum(gc.pause) over 60000 >10000:duration'],
    ['increase', 'increase(log.segments) over 1h > 1000', 'increase(log.segments) over 3600000 >1000:count'],
    ['trend', 'trend(heap.after_gc) over 6h > 0', 'trend(heap.after_gc) over 21600000 >0:count'],
    ['aggregate with labels', 'count(gc.pause{kind=~"Full.*"}) over 1h >= 3', 'count(gc.pause{kind=~Full.*}) over 3600000 >=3:count'],
    ['and', 'isr.shrink and leader.change', 'and(isr.shrink, leader.change)'],
    ['or', 'isr.shrink or leader.change', 'or(isr.shrink, leader.change)'],
    ['and chains flatten', 'isr.shrink and leader.change and jvm.oom', 'and(isr.shrink, leader.change, jvm.oom)'],
    ['and binds tighter than or', 'isr.shrink or leader.change and jvm.oom', 'or(isr.shrink, and(leader.change, jvm.oom))'],
    ['not binds tighter than and', 'not isr.shrink and jvm.oom', 'and(not(isr.shrink), jvm.oom)'],
    ['temporal binds tighter than not', 'not zk.session_timeout within 5s of safepoint.sync', 'not(within[5000](zk.session_timeout, safepoint.sync))'],
    ['comparison binds tighter than temporal', 'gc.pause > 2s before zk.session_expired within 10s', 'before[10000](gc.pause>2000:duration, zk.session_expired)'],
    ['double not', 'not not jvm.oom', 'not(not(jvm.oom))'],
    ['parentheses group', '(isr.shrink or leader.change) and jvm.oom', 'and((or(isr.shrink, leader.change)), jvm.oom)'],
    ['nested parentheses', '((jvm.oom))', '((jvm.oom))'],
    ['fact comparisons', 'config.segment_ms < 1m and broker.version < 2.2.1', 'and(config.segment_ms<60000:duration, broker.version<2002001:version)'],
    ['negative number', 'trend(heap.after_gc) over 6h < -1', 'trend(heap.after_gc) over 21600000 <-1:count'],
  ])('condition: %s', (_name, cond, expected) => {
    expect(shape(one(`rule r when ${cond} then cause "c"`).when)).toBe(expected)
  })

  it('reads every output clause of the full rule form', () => {
    const r = one(`# Seed 000: a long safepoint sync starves the ZooKeeper session.
# Leadership moves; producers fail.
rule stw_pause_session_expiry
  severity critical
  when zk.session_timeout within 5s of safepoint.sync > 2s
  then cause "JVM stop-the-world pause ({safepoint.sync}) on broker {broker} outlived the ZooKeeper session"
       advise "raise zookeeper.session.timeout.ms to 15000-18000."
       runbook "https://example.org/runbooks/stw"
       explains isr.shrink, client.not_leader, leader.change
       run "config broker {broker}"
       run "describe broker {broker}"
`)
    expect(r.name).toBe('stw_pause_session_expiry')
    expect(r.id).toBe('stw_pause_session_expiry')
    expect(r.severity).toBe('critical')
    expect(r.doc).toEqual(['Seed 000: a long safepoint sync starves the ZooKeeper session.', 'Leadership moves; producers fail.'])
    expect(r.cause.parts).toMatchObject([
      { kind: 'literal', text: 'JVM stop-the-world pause (' },
      { kind: 'ref', name: 'safepoint.sync' },
      { kind: 'literal', text: ') on broker ' },
      { kind: 'ref', name: 'broker' },
      { kind: 'literal', text: ' outlived the ZooKeeper session' },
    ])
    expect(r.advise?.raw).toBe('raise zookeeper.session.timeout.ms to 15000-18000.')
    expect(r.runbook?.raw).toBe('https://example.org/runbooks/stw')
    expect(r.explains.map((e) => e.signal)).toEqual(['isr.shrink', 'client.not_leader', 'leader.change'])
    expect(r.run.map((t) => t.raw)).toEqual(['config broker {broker}', 'describe broker {broker}'])
    expect(r.span.startLine).toBe(3)
    expect(r.span.endLine).toBe(11)
  })

  it.each([
    ['escaped quote', String.raw`"say \"hi\""`, 'say "hi"', [{ kind: 'literal', text: 'say "hi"' }]],
    ['escaped backslash', String.raw`"a\\b"`, 'a\\b', [{ kind: 'literal', text: 'a\\b' }]],
    ['literal brace', '"{{not a ref} {topic}"', '{{not a ref} {topic}', [{ kind: 'literal', text: '{not a ref} ' }, { kind: 'ref', name: 'topic' }]],
    ['dotted placeholder', '"{isr.shrink}!"', '{isr.shrink}!', [{ kind: 'ref', name: 'isr.shrink' }, { kind: 'literal', text: '!' }]],
  ])('string: %s', (_name, literal, raw, parts) => {
    const r = one(`rule r when isr.shrink{topic="x"} then cause ${literal}`)
    expect(r.cause.raw).toBe(raw)
    expect(r.cause.parts).toMatchObject(parts)
  })

  it('places placeholder spans on the placeholder itself', () => {
    const src = 'rule r when isr.shrink then cause "topic {topic} shrank"'
    const ref = one(src).cause.parts.find((p) => p.kind === 'ref')
    expect(ref && ref.kind === 'ref' && src.slice(ref.span.startOffset, ref.span.endOffset)).toBe('{topic}')
  })

  it.each([
    ['severity before when', 'rule r severity info when jvm.oom then cause "c"', 'info'],
    ['severity among outputs', 'rule r when jvm.oom then cause "c" severity critical', 'critical'],
    ['severity on an unnamed rule', 'severity critical when jvm.oom then cause "c"', 'critical'],
    ['default severity', 'rule r when jvm.oom then cause "c"', 'warning'],
  ])('severity: %s', (_name, src, severity) => {
    expect(one(src).severity).toBe(severity)
  })

  it('splits consecutive rules: at rule, or at when after a complete rule', () => {
    const { rules } = parseRules(
      [
        'when jvm.oom then cause "a" when disk.full then cause "b" severity info',
        'rule c when fd.exhausted then cause "c"',
        'rule d',
        '  when log.dir_failure',
        '  then cause "d"',
      ].join('\n'),
      'x.rules',
    )
    expect(rules.map((r) => [r.id, r.severity, r.cause.raw])).toEqual([
      ['x.rules#L1', 'warning', 'a'],
      ['x.rules#L1', 'info', 'b'],
      ['c', 'warning', 'c'],
      ['d', 'warning', 'd'],
    ])
  })

  it('treats whitespace, tabs and CRLF line ends as insignificant', () => {
    const src = 'rule r\r\n\twhen  jvm.oom\r\n\t\tthen\tcause "c"\r\n'
    const r = one(src)
    expect(r.span.startLine).toBe(1)
    expect(r.cause.span.startLine).toBe(3)
  })

  it('keeps only the comment block directly above a rule as its doc', () => {
    const { rules } = parseRules('# file header\n\n# doc line\nrule r when jvm.oom then cause "c" # trailing\n', 'x.rules')
    expect(rules[0].doc).toEqual(['doc line'])
  })

  it.each([
    ['missing then before an output clause keeps the rule', 'rule a when jvm.oom cause "x"', ['a']],
    ['an extra token in the condition drops the rule', 'rule a when jvm.oom disk.full then cause "x"\nrule b when jvm.oom then cause "y"', ['b']],
    ['an empty condition drops the rule', 'rule a when then cause "x"\nrule b when jvm.oom then cause "y"', ['b']],
    ['a broken output clause keeps the rule', 'rule a when jvm.oom then cause "x" advise\nrule b when jvm.oom then cause "y"', ['a', 'b']],
    ['no outputs drops the rule', 'rule a when jvm.oom then\nrule b when jvm.oom then cause "y"', ['b']],
    ['a missing rule name drops nothing after it', 'rule\nrule b when jvm.oom then cause "y"', ['b']],
    ['stray text before the first rule', 'hello world\nrule b when jvm.oom then cause "y"', ['b']],
  ])('recovery: %s', (_name, src, ids) => {
    const { rules, diagnostics } = parseRules(src, 'r.rules')
    expect(rules.map((r) => r.id)).toEqual(ids)
    expect(diagnostics.filter((d) => d.code === 'DSL003').length).toBeGreaterThan(0)
  })

  it('lists the signals a condition reads, once each', () => {
    const r = one('rule r when zk.session_timeout within 5s of safepoint.sync > 2s and not count(isr.shrink) over 5m > 3 and safepoint.sync > 1s then cause "c" explains leader.change')
    expect(signalsOfRule(r)).toEqual(['zk.session_timeout', 'safepoint.sync', 'isr.shrink'])
  })

  it('reads a comparison with a share of a fact, and lists the fact apart from the signals', () => {
    const r = one('rule r when zk.session_timeout within 5s of safepoint.sync > 33% of zk.session_timeout_limit and gc.pause > config.zookeeper_session_timeout_ms then cause "c"')
    const and = r.when as Extract<Cond, { kind: 'and' }>
    const temporal = and.operands[0] as Extract<Cond, { kind: 'temporal' }>
    expect(temporal.right.compare).toMatchObject({ op: '>', value: { value: 0.33, dimension: 'ratio', text: '33%' }, of: { signal: 'zk.session_timeout_limit' } })
    const whole = and.operands[1] as Extract<Cond, { kind: 'stream' }>
    expect(whole.compare).toMatchObject({ value: { value: 1, text: '' }, of: { signal: 'config.zookeeper_session_timeout_ms' } })
    expect(signalsOfRule(r)).toEqual(['zk.session_timeout', 'safepoint.sync', 'gc.pause'])
    expect(factRefsOfRule(r)).toEqual(['zk.session_timeout_limit', 'config.zookeeper_session_timeout_ms'])
  })

  it('lists per signal the label filters and by labels a condition uses', () => {
    const r = one('rule r when count(isr.shrink{topic="orders"}) by partition over 5m > 3 or isr.shrink{topic=~"pay.*"} within 5s of gc.pause then cause "c"')
    const uses = signalUsesOfRule(r).map((u) => ({ signal: u.signal, filters: u.atoms.map((a) => a.labels.map((l) => `${l.name}${l.op}${l.value}`)), by: u.by }))
    expect(uses).toEqual([
      { signal: 'isr.shrink', filters: [['topic=orders'], ['topic=~pay.*']], by: ['partition'] },
      { signal: 'gc.pause', filters: [[]], by: [] },
    ])
  })
})
