import { formatValue } from '../../signals/units.js'
import type { DigestReport } from '../digest/build-digest.js'
import type { BotMessage, MessagePart } from '../message.js'
import { escapeMrkdwn } from './block-kit.js'
import { formatTime, formatWindow } from './time.js'

/** A broker's status as Slack shows it: the colour of its worst alert, the same scale as alert messages. */
const STATUS_ICONS: Record<DigestReport['brokers'][number]['status'], string> = {
  critical: ':red_circle:',
  warning: ':warning:',
  info: ':information_source:',
  ok: ':white_check_mark:',
}

/** The daily digest as a message: per-broker health, noisy groups, config smells, top diagnoses. */
export function renderDigest(r: DigestReport, opts: { timeZone: string }): BotMessage {
  const parts: MessagePart[] = [
    { kind: 'header', text: `Daily Kafka digest: ${r.cluster}` },
    { kind: 'context', text: `${formatWindow(r.from, r.to, opts.timeZone)} · ${r.brokers.length} broker${r.brokers.length === 1 ? '' : 's'} · ${r.signalsSeen} signals` },
  ]
  if (!r.brokers.length) parts.push({ kind: 'section', text: 'No broker reported any signal in this window: check that logs and metrics are being shipped.' })
  for (const b of r.brokers) {
    const flags = b.statusReasons
    const icon = STATUS_ICONS[b.status]
    const trend =
      b.heapAfterGcSlopePerHour === undefined
        ? '–'
        : `${b.heapAfterGcSlopePerHour >= 0 ? '+' : '-'}${formatValue(Math.abs(b.heapAfterGcSlopePerHour), 'bytes')}/h (${formatValue(b.heapAfterGcFirst!, 'bytes')} → ${formatValue(b.heapAfterGcLast!, 'bytes')})`
    parts.push({
      kind: 'section',
      text: `${icon} *Broker ${escapeMrkdwn(b.broker)}*${flags.length ? ` — ${flags.join(', ')}` : ''}`,
      fields: [
        `*Under-replicated*\n${b.underReplicatedMs > 0 ? `${formatValue(b.underReplicatedMs, 'duration')} (up to ${b.underReplicatedMax} partition${b.underReplicatedMax === 1 ? '' : 's'})` : 'never'}`,
        `*ISR shrinks*\n${b.isrShrinks}`,
        `*GC pause p99*\n${b.gcPauseP99Ms === undefined ? '–' : `${formatValue(b.gcPauseP99Ms, 'duration')} (${b.gcPauses} pauses)`}`,
        `*Longest safepoint*\n${b.longestSafepointMs === undefined ? '–' : formatValue(b.longestSafepointMs, 'duration')}`,
        `*Heap after GC trend*\n${trend}`,
        `*Restarts*\n${b.restarts}`,
      ],
    })
  }
  if (r.groups.length) {
    const lines = r.groups.slice(0, 10).map((g) => `• \`${escapeMrkdwn(g.group)}\`: ${g.rebalances} rebalance${g.rebalances === 1 ? '' : 's'}, ${g.memberFailures} member failure${g.memberFailures === 1 ? '' : 's'} (coordinator broker ${escapeMrkdwn(g.brokers.join(', '))})`)
    if (r.groups.length > 10) lines.push(`• … ${r.groups.length - 10} more groups`)
    parts.push({ kind: 'section', text: `*Rebalances per consumer group*\n${lines.join('\n')}` })
  }
  if (r.lagging?.length) {
    const lines = r.lagging.map((g) => `• \`${escapeMrkdwn(g.group)}\`: ${formatValue(g.maxLagTimeMs, 'duration')} behind on ${escapeMrkdwn(`${g.topic}-${g.partition}`)}${g.lagMessages !== undefined ? ` (${g.lagMessages.toLocaleString('en-US')} messages)` : ''} at ${formatTime(g.at, opts.timeZone).slice(0, 5)}`)
    parts.push({ kind: 'section', text: `*Consumer groups furthest behind (lag in time)*\n${lines.join('\n')}` })
  }
  if (r.smells.length) {
    const lines = r.smells.slice(0, 15).map((s) => {
      const where = [s.broker !== undefined ? `broker ${s.broker}` : 'cluster', s.topic ? `topic ${s.topic}` : ''].filter(Boolean).join(', ')
      const shown = s.key.endsWith('.ms') && /^\d+$/.test(s.value) ? `${s.value} (${formatValue(Number(s.value), 'duration')})` : s.value
      return `• \`${escapeMrkdwn(s.key)}=${escapeMrkdwn(shown)}\` on ${escapeMrkdwn(where)}: ${escapeMrkdwn(s.why)}`
    })
    if (r.smells.length > 15) lines.push(`• … ${r.smells.length - 15} more`)
    parts.push({ kind: 'section', text: `*Config smells*\n${lines.join('\n')}` })
  }
  if (r.topDiagnoses.length) {
    const lines = r.topDiagnoses.map((d) => {
      const how = d.fired ? `fired ${d.fired}×` : `asked ${d.asked}×`
      const where = d.brokers.length ? ` on broker ${escapeMrkdwn(d.brokers.join(', '))}` : ''
      return `• \`${escapeMrkdwn(d.ruleId)}\` (${d.severity}, ${how})${where}: ${escapeMrkdwn(d.cause)} — last ${formatTime(d.lastAt, opts.timeZone).slice(0, 5)}`
    })
    parts.push({ kind: 'section', text: `*Top diagnoses*\n${lines.join('\n')}` })
  } else {
    parts.push({ kind: 'section', text: '*Top diagnoses*\nNone in this window.' })
  }
  parts.push({ kind: 'context', text: 'Chart (attached): heap after GC, longest JVM pause, under-replicated partitions and consumer group rebalances per broker, with the alerts that fired shaded.' })
  const worst = r.brokers.filter((b) => b.status !== 'ok').map((b) => b.broker)
  const text = `Kafka digest ${r.cluster}: ${r.brokers.length} brokers, ${worst.length ? `attention: broker ${worst.join(', ')}` : 'no alert and nothing abnormal on any broker'}, ${r.topDiagnoses.length} diagnosis kinds, ${r.smells.length} config smells`
  return { text, parts, visibility: 'channel' }
}
