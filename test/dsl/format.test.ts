import { describe, expect, it } from 'vitest'
import { formatRules } from '../../dsl/index.js'

const fmt = (src: string) => formatRules(src, 'f.rules').text

describe('dsl/format', () => {
  it.each([
    ['the card sentence', 'when zk.session_timeout within 5s of safepoint.sync > 2s then cause "STW pause"', 'when zk.session_timeout within 5s of safepoint.sync > 2s\n  then cause "STW pause"\n'],
    [
      'a named rule with every clause, in canonical order',
      'rule r run "a {broker}" explains isr.shrink,leader.change runbook "u" advise "b" cause "c" severity critical',
      null,
    ],
    [
      'outputs in canonical order',
      'rule r when jvm.oom then run "a" explains isr.shrink,leader.change runbook "u" advise "b" cause "c" severity critical',
      'rule r\n  severity critical\n  when jvm.oom\n  then cause "c"\n       advise "b"\n       runbook "u"\n       explains isr.shrink, leader.change\n       run "a"\n',
    ],
    [
      'a share of a fact and a whole fact',
      'rule r when zk.session_timeout within 5s of safepoint.sync>33%  of  zk.session_timeout_limit or gc.pause >zk.session_timeout_limit then cause "c"',
      'rule r\n  when zk.session_timeout within 5s of safepoint.sync > 33% of zk.session_timeout_limit\n    or gc.pause > zk.session_timeout_limit\n  then cause "c"\n',
    ],
    ['default severity omitted', 'rule r when jvm.oom then cause "c"', 'rule r\n  when jvm.oom\n  then cause "c"\n'],
    ['explicit default severity kept', 'rule r severity warning when jvm.oom then cause "c"', 'rule r\n  severity warning\n  when jvm.oom\n  then cause "c"\n'],
    ['unnamed rule severity goes last', 'severity info when jvm.oom then cause "c"', 'when jvm.oom\n  then cause "c"\n       severity info\n'],
    ['label filters and escapes', 'rule r when gc.pause{kind=~"Full.*",cause="a\\"b"} then cause "say \\"hi\\" \\\\ {{x"', 'rule r\n  when gc.pause{kind=~"Full.*", cause="a\\"b"}\n  then cause "say \\"hi\\" \\\\ {{x"\n'],
    ['parentheses kept as written', 'rule r when ((jvm.oom)) or (disk.full and fd.exhausted) then cause "c"', 'rule r\n  when ((jvm.oom)) or (disk.full and fd.exhausted)\n  then cause "c"\n'],
    ['aggregates and sustained', 'rule r when count( group.rebalance ) by group,generation over 1h>30 and heap.used>3GiB for 5m then cause "c"', 'rule r\n  when count(group.rebalance) by group, generation over 1h > 30 and heap.used > 3GiB for 5m\n  then cause "c"\n'],
    [
      'long conditions break at the top-level operator',
      'rule r when kraft.heartbeat_failed within 10s of safepoint.total > 2s or kraft.broker_fenced within 10s of safepoint.total > 2s or jvm.oom then cause "c"',
      'rule r\n  when kraft.heartbeat_failed within 10s of safepoint.total > 2s\n    or kraft.broker_fenced within 10s of safepoint.total > 2s\n    or jvm.oom\n  then cause "c"\n',
    ],
    [
      'long and-chains break with and right-aligned',
      'when zk.session_timeout within 5s of safepoint.total > 2s and not safepoint.sync > 2s and not gc.pause > 2s and not jvm.oom then cause "c"',
      'when zk.session_timeout within 5s of safepoint.total > 2s\n and not safepoint.sync > 2s\n and not gc.pause > 2s\n and not jvm.oom\n  then cause "c"\n',
    ],
    [
      'doc comments stay, detached comments stay apart, inner comments move to the doc',
      '# header\n\n# doc\nrule a # inline\n  when jvm.oom\n  # inner\n  then cause "a"\nrule b when disk.full then cause "b"\n# trailer\n',
      '# header\n\n# doc\n# inline\n# inner\nrule a\n  when jvm.oom\n  then cause "a"\n\nrule b\n  when disk.full\n  then cause "b"\n\n# trailer\n',
    ],
    ['CRLF and tabs normalised', 'rule a\r\n\twhen jvm.oom\r\n\tthen cause "a"\r\n', 'rule a\n  when jvm.oom\n  then cause "a"\n'],
    ['empty file', '', ''],
    ['comments only', '# just a note\n#\n', '# just a note\n#\n'],
  ])('%s', (_name, src, expected) => {
    const out = fmt(src)
    if (expected === null) {
      expect(out).toBe(src)
      return
    }
    expect(out).toBe(expected)
    expect(fmt(out)).toBe(out)
  })

  it('returns a file with syntax errors unchanged, with the errors', () => {
    const src = 'rule a   when jvm.oom and then cause "a"\nrule b when disk.full    then cause "b"\n'
    const { text, diagnostics } = formatRules(src, 'f.rules')
    expect(text).toBe(src)
    expect(diagnostics.map((d) => d.code)).toContain('DSL003')
  })

  it('formats a file with semantic errors (they do not make the layout ambiguous)', () => {
    const { text, diagnostics } = formatRules('rule a when safepoint.synch>2s then cause "a"', 'f.rules')
    expect(text).toBe('rule a\n  when safepoint.synch > 2s\n  then cause "a"\n')
    expect(diagnostics.map((d) => d.code)).toEqual(['DSL012'])
  })
})
