import type { BrokerPart, ClusterDiagnosis, CrossLink } from '../engine/diagnose-cluster.js'
import type { Cause } from '../engine/diagnosis.js'
import { isoStamp, renderDiagnosis, type TextRenderOptions } from './render-text.js'

/**
 * A cluster answer for a terminal: which broker is the origin and why (its full answer, as `why
 * <broker>` prints it), then one line per other broker saying what it shows and whose consequence
 * that is. A support bundle holds every broker's logs; the person reading wants the sick one first.
 */
export function renderClusterDiagnosis(c: ClusterDiagnosis, opts: TextRenderOptions = {}): string {
  const out: string[] = []
  const origins = c.brokers.filter((b) => b.role === 'origin')
  const named = c.brokers.filter((b) => b.role === 'named')
  out.push(`cluster ${c.cluster} · ${c.brokers.length} broker${c.brokers.length === 1 ? '' : 's'} · ${isoStamp(c.from)} → ${isoStamp(c.to)}`)
  out.push(headline(c, origins, named))
  out.push('')
  for (const part of c.brokers) {
    if (part.role === 'origin' || part.role === 'named') continue
    out.push(`${who(part, c)}: ${describeOther(part, c.links)}`)
  }
  for (const part of named) out.push(`${who(part, c)}: ${describeNamed(part)}`)
  for (const w of c.clusterWide) out.push(`clients and cluster-wide: ${w.cause.severity.toUpperCase()} ${w.cause.ruleId}${labelText(w.cause)} (rests on no broker's own lines)`)
  if (c.brokers.some((b) => b.role !== 'origin') || c.clusterWide.length) out.push('')
  for (const part of origins) {
    const explains = c.links.filter((l) => l.cause.broker === part.broker)
    out.push(`── origin: broker ${part.broker}${explains.length ? ` (explains ${describeExplained(explains)})` : ''} ──`)
    out.push(renderDiagnosis(part.diagnosis, opts), '')
  }
  out.push(`(kafka-why why <broker> with the same inputs prints one broker's whole answer)`)
  return out.join('\n').trimEnd()
}

/** "origin: broker 3 (CRITICAL disk_full)" or what stands in for one. */
function headline(c: ClusterDiagnosis, origins: BrokerPart[], named: BrokerPart[]): string {
  if (origins.length) {
    const first = origins[0].own[0]
    // The same cause on every broker is a condition of the cluster (a client's bad credentials, the
    // ensemble gone), not one sick broker.
    if (c.brokers.length > 1 && origins.length === c.brokers.length && origins.every((o) => o.own.some((x) => x.ruleId === first.ruleId))) {
      return `on every broker: ${first.severity.toUpperCase()} ${first.ruleId} — no single broker is the origin`
    }
    return `origin: ${origins.map((o) => `broker ${o.broker} (${o.own[0].severity.toUpperCase()} ${o.own[0].ruleId})`).join('; ')}${origins.length > 1 ? ' — causes of their own on more than one broker' : ''}`
  }
  if (named.length) return `origin: broker ${named[0].broker}, named by its peers' evidence; its own logs show nothing (not given, or it stopped without a line)`
  if (c.clusterWide.length) return `no broker is the origin; what the clients and the cluster-wide data show: ${c.clusterWide[0].cause.severity.toUpperCase()} ${c.clusterWide[0].cause.ruleId}`
  return 'no broker shows a cause above info'
}

/** "broker 2", and when its own data ends before its peers', the last record it was answered at. */
function who(part: BrokerPart, c: ClusterDiagnosis): string {
  const latest = Math.max(...c.brokers.map((b) => b.diagnosis.to))
  return `broker ${part.broker}${part.diagnosis.to < latest ? ` (answered at its last record, ${isoStamp(part.diagnosis.to)})` : ''}`
}

/** What an affected or quiet broker shows, and whose consequence it is. */
function describeOther(part: BrokerPart, links: readonly CrossLink[]): string {
  if (part.role === 'quiet') return 'nothing above info'
  const mine = links.filter((l) => l.consequence.broker === part.broker)
  const shown = part.diagnosis.causes.filter((c) => c.severity !== 'info' || mine.some((l) => l.consequence.ruleId === c.ruleId))
  if (!shown.length) return 'nothing a rule names; see its abnormal signals with why'
  return shown
    .slice(0, 3)
    .map((c) => `${c.severity.toUpperCase()} ${c.ruleId}${labelText(c)}${consequenceOf(c, mine)}`)
    .join('; ')
}

function describeNamed(part: BrokerPart): string {
  const by = part.namedBy.map((r) => `broker ${r.broker}'s ${r.ruleId}`).join(', ')
  return `named by ${by}; no cause of its own in its logs${part.diagnosis.signalsSeen === 0 ? ' (no logs of it were given)' : ''}`
}

function consequenceOf(c: Cause, mine: readonly CrossLink[]): string {
  const of = mine.filter((l) => l.consequence.ruleId === c.ruleId).map((l) => `broker ${l.cause.broker}'s ${l.cause.ruleId}`)
  return of.length ? ` — a consequence of ${[...new Set(of)].join(', ')}` : ''
}

/** "broker 1's fetcher_cannot_reach_leader, broker 2's fetcher_cannot_reach_leader" */
function describeExplained(links: readonly CrossLink[]): string {
  return [...new Set(links.map((l) => `broker ${l.consequence.broker}'s ${l.consequence.ruleId}`))].join(', ')
}

function labelText(c: Cause): string {
  const labels = Object.entries(c.labels).map(([k, v]) => `${k}=${v}`).join(' ')
  return labels ? ` {${labels}}` : ''
}
