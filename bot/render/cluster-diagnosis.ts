import { compareBroker } from '../../engine/broker-id.js'
import type { BrokerPart, ClusterDiagnosis, CrossLink } from '../../engine/diagnose-cluster.js'
import type { Cause } from '../../engine/diagnosis.js'
import type { BotMessage, MessagePart } from '../message.js'
import { escapeMrkdwn } from './block-kit.js'
import { renderCause, type DiagnosisRenderOptions } from './diagnosis.js'
import { SLACK_LIMITS } from './slack-limits.js'
import { formatTime, formatWindow } from './time.js'

/**
 * A cluster answer for Slack and the console: which broker is the origin and why (its top causes
 * with evidence, as `why <broker>` shows them), then one line per other broker saying whose
 * consequence its symptoms are, then what the clients and cluster-wide data show, once. An incident
 * is a cluster event; the reader wants the sick broker first, not three answers to compare.
 */

/** Presentation choices beyond one broker's: how many of an origin's causes to show in full. */
export type ClusterRenderOptions = DiagnosisRenderOptions & {
  /** Causes shown in full per origin broker (the rest are named). Default 2. */
  causesPerOrigin?: number
  /** Offer "Why one broker…" (off for uploaded logs, which live clusters do not hold). Default true. */
  brokerPicker?: boolean
}

const ICON = { critical: ':red_circle:', warning: ':large_orange_circle:', info: ':large_blue_circle:' } as const

/** Blocks kept free for the closing parts (other brokers, cluster-wide, picker, an upload's note). */
const RESERVED_BLOCKS = 8

/** Renders a ClusterDiagnosis: header, origins with their top causes, other brokers, cluster-wide causes. */
export function renderClusterDiagnosis(c: ClusterDiagnosis, opts: ClusterRenderOptions): BotMessage {
  const origins = c.brokers.filter((b) => b.role === 'origin')
  const named = c.brokers.filter((b) => b.role === 'named')
  const head = headline(c, origins, named)
  const parts: MessagePart[] = []
  parts.push({ kind: 'header', text: clip(`Cluster ${c.cluster}: ${head}`, SLACK_LIMITS.headerText) })
  const seen = c.brokers.reduce((n, b) => n + b.diagnosis.signalsSeen, 0)
  parts.push({ kind: 'context', text: `${formatWindow(c.from, c.to, opts.timeZone)} · ${c.brokers.length} broker${c.brokers.length === 1 ? '' : 's'} · ${seen} signals looked at` })

  const perOrigin = opts.causesPerOrigin ?? 2
  for (const part of origins) {
    const explains = c.links.filter((l) => l.cause.broker === part.broker)
    const intro: MessagePart[] = [
      { kind: 'divider' },
      { kind: 'section', text: clip(`*Origin: broker ${escapeMrkdwn(part.broker)}*${explains.length ? ` — explains ${describeExplained(explains)}` : ''}`, SLACK_LIMITS.sectionText) },
    ]
    if (parts.length + intro.length > SLACK_LIMITS.blocksPerMessage - RESERVED_BLOCKS) break
    parts.push(...intro)
    const shown = part.own.slice(0, perOrigin)
    shown.forEach((cause, i) => {
      const blocks = renderCause(cause, i + 1, opts)
      if (parts.length + blocks.length > SLACK_LIMITS.blocksPerMessage - RESERVED_BLOCKS) return
      parts.push(...blocks)
    })
    const rest = part.own.slice(shown.length)
    if (rest.length) parts.push({ kind: 'context', text: clip(`Also on broker ${escapeMrkdwn(part.broker)}: ${rest.map((x) => `${x.severity} \`${escapeMrkdwn(x.ruleId)}\``).join(', ')}`, SLACK_LIMITS.contextText) })
  }

  const others = c.brokers.filter((b) => b.role !== 'origin')
  if (others.length) {
    parts.push({ kind: 'divider' })
    // A broker whose own logs stop before the rest was answered at its last record: say which.
    const latest = Math.max(...c.brokers.map((b) => b.diagnosis.to))
    const ends = (b: BrokerPart) => (b.diagnosis.to < latest ? ` (answered at its last record, ${formatTime(b.diagnosis.to, opts.timeZone, true)})` : '')
    const lines = [...others.filter((b) => b.role !== 'named'), ...named].map((b) => `• *broker ${escapeMrkdwn(b.broker)}*${ends(b)}: ${b.role === 'named' ? describeNamed(b) : describeOther(b, c.links)}`)
    parts.push({ kind: 'section', text: fitLines(origins.length ? '*The other brokers*' : '*The brokers*', lines) })
  }
  if (c.clusterWide.length) {
    parts.push({ kind: 'divider' })
    const lines = c.clusterWide.map((w) => `${ICON[w.cause.severity]} ${escapeMrkdwn(w.cause.cause)} (\`${escapeMrkdwn(w.cause.ruleId)}\`, seen from broker${w.brokers.length === 1 ? '' : 's'} ${w.brokers.map(escapeMrkdwn).join(', ')})`)
    parts.push({ kind: 'section', text: fitLines('*What the clients and cluster-wide data show* (no broker\'s own lines; told once):', lines) })
  }
  if ((opts.brokerPicker ?? true) && c.brokers.length) {
    parts.push({
      kind: 'actions',
      elements: [
        {
          kind: 'select',
          placeholder: 'Why one broker…',
          action: 'kafka_why_broker',
          // Only ids: the click runs `why <cluster>:<broker>`, which checks both again.
          options: c.brokers.map((b) => b.broker).sort(compareBroker).slice(0, SLACK_LIMITS.selectOptions).map((broker) => ({ label: `broker ${broker}`, value: `${c.cluster}:${broker}` })),
        },
      ],
    })
  }
  const text = `Cluster ${c.cluster}: ${head}${origins.length ? ` — ${origins.map((o) => `broker ${o.broker}: ${o.own[0].cause}`).join(' ')}` : ''}`
  return { text: clip(text, SLACK_LIMITS.messageText), parts, visibility: 'channel' }
}

/** "origin broker 3 (disk_full)", or what stands in for one. Plain text (a header is not mrkdwn). */
function headline(c: ClusterDiagnosis, origins: BrokerPart[], named: BrokerPart[]): string {
  if (origins.length) {
    const first = origins[0].own[0]
    // The same cause on every broker is a condition of the cluster, not one sick broker.
    if (c.brokers.length > 1 && origins.length === c.brokers.length && origins.every((o) => o.own.some((x) => x.ruleId === first.ruleId))) {
      return `${first.ruleId} on every broker, no single origin`
    }
    return `origin ${origins.map((o) => `broker ${o.broker} (${o.own[0].ruleId})`).join(', ')}`
  }
  if (named.length) return `origin broker ${named[0].broker}, named by its peers`
  if (c.clusterWide.length) return `no broker is the origin; clients and cluster-wide data show ${c.clusterWide[0].cause.ruleId}`
  return 'no broker shows a cause above info'
}

/** What an affected or quiet broker shows, and whose consequence it is. */
function describeOther(part: BrokerPart, links: readonly CrossLink[]): string {
  if (part.role === 'quiet') return part.diagnosis.signalsSeen === 0 ? 'no signals in this window' : 'nothing above info'
  const mine = links.filter((l) => l.consequence.broker === part.broker)
  const shown = part.diagnosis.causes.filter((c) => c.severity !== 'info' || mine.some((l) => l.consequence.ruleId === c.ruleId))
  if (!shown.length) return 'nothing a rule names; `why` on it lists its abnormal signals'
  const more = shown.length > 3 ? ` (+${shown.length - 3} more)` : ''
  return `${shown.slice(0, 3).map((c) => `${c.severity} \`${escapeMrkdwn(c.ruleId)}\`${labelText(c)}${consequenceOf(c, mine)}`).join('; ')}${more}`
}

function describeNamed(part: BrokerPart): string {
  const by = part.namedBy.map((r) => `broker ${escapeMrkdwn(r.broker)}'s \`${escapeMrkdwn(r.ruleId)}\``).join(', ')
  return `named by ${by}; no cause of its own in its logs${part.diagnosis.signalsSeen === 0 ? ' (it has no signals here)' : ''}`
}

function consequenceOf(c: Cause, mine: readonly CrossLink[]): string {
  const of = [...new Set(mine.filter((l) => l.consequence.ruleId === c.ruleId).map((l) => `broker ${escapeMrkdwn(l.cause.broker)}'s \`${escapeMrkdwn(l.cause.ruleId)}\``))]
  return of.length ? ` — a consequence of ${of.join(', ')}` : ''
}

/** "broker 1's `fetcher_cannot_reach_leader`, broker 2's `fetcher_cannot_reach_leader`" */
function describeExplained(links: readonly CrossLink[]): string {
  return [...new Set(links.map((l) => `broker ${escapeMrkdwn(l.consequence.broker)}'s \`${escapeMrkdwn(l.consequence.ruleId)}\``))].join(', ')
}

function labelText(c: Cause): string {
  const labels = Object.entries(c.labels).map(([k, v]) => `${k}=${v}`).join(' ')
  return labels ? ` {${escapeMrkdwn(labels)}}` : ''
}

/** A heading and bullet lines in one section, cut at whole lines to Slack's section limit. */
function fitLines(head: string, lines: readonly string[]): string {
  const budget = SLACK_LIMITS.sectionText - 100
  const kept: string[] = []
  let used = head.length
  for (const line of lines) {
    const l = clip(line, 1000)
    if (used + l.length + 1 > budget) break
    kept.push(l)
    used += l.length + 1
  }
  const left = lines.length - kept.length
  return `${head}\n${kept.join('\n')}${left ? `\n• … ${left} more` : ''}`
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s
}
