import { describePartition, type GroupDiagnosis } from '../../engine/consumer-lag-explain.js'
import type { Evidence } from '../../engine/diagnosis.js'
import { lookupSignal } from '../../signals/catalogue.js'
import { formatValue } from '../../signals/units.js'
import type { BotMessage, MessagePart } from '../message.js'
import { escapeFallback, escapeMrkdwn } from './block-kit.js'
import { renderTimeline, type DiagnosisRenderOptions } from './diagnosis.js'
import { formatWindow } from './time.js'

const STATUS_ICON: Record<string, string> = { OK: ':large_green_circle:', WARNING: ':large_yellow_circle:', REWIND: ':large_orange_circle:', STALLED: ':red_circle:', STOPPED: ':red_circle:' }
/** Partitions listed in the reply; a group of hundreds is counted, not listed. */
const PARTITIONS_SHOWN = 8
/** Causes shown; the first is the answer, the rest what else was seen. */
const CAUSES_SHOWN = 3

/**
 * `/kafka why group G` as a message: the group's status with its worst partitions, then the ranked
 * causes, each with its evidence timeline. Group, topic and client text is broker data: escaped.
 */
export function renderGroupDiagnosis(d: GroupDiagnosis, opts: Pick<DiagnosisRenderOptions, 'timeZone'>): BotMessage {
  const group = escapeMrkdwn(d.group)
  const window = formatWindow(d.from, d.to, opts.timeZone)
  if (d.status === undefined) {
    const text = `No commits of consumer group ${d.group} are recorded in cluster ${d.cluster} (${window}): is the name right, and does the consumer-lag adapter read this cluster?`
    return { text: escapeFallback(text), parts: [{ kind: 'section', text: escapeMrkdwn(text) }], visibility: 'channel' }
  }
  const bad = d.partitions.filter((p) => p.status !== 'OK')
  const behind = d.maxLagTimeMs !== undefined ? `, up to ${formatValue(d.maxLagTimeMs, 'duration')} behind` : ''
  const headline = `${d.status}: ${bad.length} of ${d.partitions.length} partitions not OK, ${d.totalLag.toLocaleString('en-US')} messages of lag${behind}`
  const parts: MessagePart[] = [
    { kind: 'header', text: `Consumer group ${d.group.slice(0, 120)}` },
    { kind: 'section', text: `${STATUS_ICON[d.status]} *${escapeMrkdwn(headline)}*\n${escapeMrkdwn(`${d.cluster} · ${window}${d.members !== undefined ? ` · ${d.members} members` : ''}${d.coordinator !== undefined ? ` · coordinator broker ${d.coordinator}` : ''}`)}` },
  ]
  const listed = (bad.length ? bad : d.partitions).slice(0, PARTITIONS_SHOWN)
  const more = (bad.length || d.partitions.length) - listed.length
  parts.push({ kind: 'section', text: `\`\`\`\n${escapeMrkdwn(listed.map(describePartition).join('\n').replace(/```/g, "'''"))}\n\`\`\`${more > 0 ? `\n+${more} more` : ''}` })
  if (d.status === 'OK') parts.push({ kind: 'context', text: "Nothing to explain: every partition is OK by Burrow's rules." })
  d.causes.slice(0, CAUSES_SHOWN).forEach((c, i) => {
    parts.push({ kind: 'divider' })
    parts.push({ kind: 'section', text: `*${i + 1}. ${escapeMrkdwn(c.title)}*\n${c.kind} · score ${c.score}${c.ruleId ? ` · rule \`${escapeMrkdwn(c.ruleId)}\` on broker ${escapeMrkdwn(c.broker ?? '')}` : ''}` })
    const evidence: Evidence[] = c.evidence.map((s) => {
      const unit = lookupSignal(s.name)?.unit
      const valueText = s.value !== undefined && unit && unit !== 'none' ? formatValue(s.value, unit) : undefined
      return { at: s.at, signal: s.name, broker: s.broker, value: s.value, ...(valueText !== undefined ? { valueText } : {}), labels: s.labels, text: s.text, source: s.source }
    })
    if (evidence.length) parts.push({ kind: 'section', text: renderTimeline(evidence, { timeZone: opts.timeZone, maxEvidence: 4 }) })
    parts.push({ kind: 'section', text: `:bulb: ${escapeMrkdwn(c.advise)}` })
  })
  const top = d.causes[0]
  const text = `Consumer group ${d.group}: ${headline}${top && d.status !== 'OK' ? `. Likely cause: ${top.title}` : ''}`
  return { text: escapeFallback(text), parts, visibility: 'channel' }
}
