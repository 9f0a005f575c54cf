import { describePartition, type GroupDiagnosis } from '../engine/consumer-lag-explain.js'
import { formatValue } from '../signals/units.js'
import { isoStamp } from './render-text.js'

/** At most this many partitions are listed; the rest are counted. */
const PARTITIONS_SHOWN = 12

/** `why --group G` as text: the status, the partitions that are not OK, then the ranked causes with their evidence. */
export function renderGroupDiagnosis(d: GroupDiagnosis, opts: { verbose?: boolean } = {}): string {
  const lines: string[] = []
  const window = `${isoStamp(d.from)} → ${isoStamp(d.to)}`
  if (d.status === undefined) {
    lines.push(`consumer group ${d.group} of ${d.cluster} · ${window}: no commits recorded for it (the consumer-lag adapter reads __consumer_offsets; is the group's name right?)`)
    return lines.join('\n')
  }
  const bad = d.partitions.filter((p) => p.status !== 'OK')
  const lagTime = d.maxLagTimeMs !== undefined ? `, up to ${formatValue(d.maxLagTimeMs, 'duration')} behind` : ''
  const members = d.members !== undefined ? ` · ${d.members} member${d.members === 1 ? '' : 's'}` : ''
  const coordinator = d.coordinator !== undefined ? ` · coordinator broker ${d.coordinator}` : ''
  lines.push(`consumer group ${d.group} of ${d.cluster} · ${window}${members}${coordinator}`)
  lines.push(`status ${d.status}: ${bad.length} of ${d.partitions.length} partitions not OK, total lag ${d.totalLag.toLocaleString('en-US')} messages${lagTime}`)
  const shown = opts.verbose ? d.partitions : (bad.length ? bad : d.partitions).slice(0, PARTITIONS_SHOWN)
  for (const p of shown) lines.push(`  ${describePartition(p)}`)
  const hidden = (opts.verbose ? d.partitions.length : bad.length || d.partitions.length) - shown.length
  if (hidden > 0) lines.push(`  … ${hidden} more`)
  if (d.status === 'OK') {
    lines.push('', 'nothing to explain: every partition is OK by Burrow\'s rules')
    return lines.join('\n')
  }
  lines.push('')
  d.causes.forEach((c, i) => {
    lines.push(`${i + 1}. ${c.kind.toUpperCase()}  ${c.title}`)
    lines.push(`   score ${c.score}${c.ruleId ? ` · rule ${c.ruleId} on broker ${c.broker}` : ''}`)
    lines.push(`   advise: ${c.advise}`)
    const ev = opts.verbose ? c.evidence : c.evidence.slice(0, 3)
    if (ev.length) lines.push(`   evidence (${ev.length} of ${c.evidence.length}):`)
    for (const e of ev) {
      const value = e.value !== undefined ? ` ${e.value}` : ''
      lines.push(`       ${isoStamp(e.at).slice(11)}  ${e.name}${e.broker !== undefined ? ` broker ${e.broker}` : ''}${value}${e.text ? `  ${e.text.slice(0, 160)}` : ''}`)
    }
  })
  return lines.join('\n')
}
