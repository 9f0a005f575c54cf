import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { loadIncident, loadRuleSet } from '../bot/engine-bridge.js'
import { diagnoseCluster, type ClusterDiagnosis } from '../engine/diagnose-cluster.js'
import { MemoryStore } from '../engine/store/memory-store.js'
import { REPO_DIR } from './kafka-runtime.js'

/**
 * Origin-broker accuracy of cluster answers over the lab's multi-broker recordings: is the broker the
 * fault was injected on named first? Faults that live outside any broker (a client's credentials or
 * quota, a stuck consumer, ZooKeeper gone) have no origin broker: there the answer is right when it
 * names the expected cause as the cluster's (on every broker, or from cluster-wide evidence).
 * `npx tsx lab/origin-table.ts` prints the table docs/cluster-answers.md shows.
 */

/** Faults whose origin is not a broker: the lab's `broker` there is only where it was observed. */
export const OUTSIDE_A_BROKER = new Set(['quota-throttled', 'sasl-auth-failure', 'tls-handshake-failure', 'tls-cert-expired', 'stuck-consumer', 'zk-kill'])

/** One recording's verdict. */
export type OriginVerdict = { slug: string; faultBroker?: string; expected?: string; origins: string[]; clusterCause?: string; right: boolean }

const INCIDENTS = join(REPO_DIR, 'test', 'incidents')

/** The lab recordings with logs of two or more brokers. */
export function multiBrokerRecordings(): string[] {
  return readdirSync(INCIDENTS)
    .filter((d) => d.startsWith('lab-') && existsSync(join(INCIDENTS, d, 'lab.json')))
    .filter((d) => readdirSync(join(INCIDENTS, d)).filter((x) => x.startsWith('broker-')).length >= 2)
    .sort()
}

/** The cluster answer over a whole recording. */
export async function clusterAnswerOf(slug: string): Promise<ClusterDiagnosis> {
  const { rules } = await loadRuleSet([join(REPO_DIR, 'rules')])
  const store = new MemoryStore()
  const loaded = await loadIncident(store, join(INCIDENTS, slug))
  const times = [...loaded.times.values()].flat()
  const from = times.reduce((a, b) => Math.min(a, b))
  const to = times.reduce((a, b) => Math.max(a, b))
  const cluster = (await store.brokers())[0].cluster
  return diagnoseCluster(rules, store, { cluster, from, to, now: to, record: false, dataEnds: loaded.ends })
}

/** Scores one recording's cluster answer against its lab.json. */
export async function originVerdict(slug: string): Promise<OriginVerdict> {
  const lab = JSON.parse(readFileSync(join(INCIDENTS, slug, 'lab.json'), 'utf8')) as { scenario: string; broker?: string; expect: { topRule?: string | null } }
  const answer = await clusterAnswerOf(slug)
  const origins = answer.brokers.filter((b) => b.role === 'origin' || b.role === 'named').map((b) => b.broker)
  const first = answer.brokers[0]
  const everyBroker = answer.brokers.length > 1 && answer.brokers.every((b) => b.own.some((c) => c.ruleId === first?.own[0]?.ruleId))
  const clusterCause = everyBroker ? first.own[0].ruleId : origins.length === 0 ? answer.clusterWide[0]?.cause.ruleId : undefined
  const expected = lab.expect.topRule ?? undefined
  let right: boolean
  if (expected === undefined) right = !answer.brokers.some((b) => b.own.some((c) => c.severity === 'critical'))
  else if (OUTSIDE_A_BROKER.has(lab.scenario)) right = clusterCause === expected || (origins.length === 0 && answer.brokers.some((b) => b.diagnosis.causes[0]?.ruleId === expected))
  else right = first?.broker === lab.broker && origins[0] === lab.broker
  return { slug, faultBroker: lab.broker, expected, origins, clusterCause, right }
}

async function main(): Promise<void> {
  const verdicts: OriginVerdict[] = []
  for (const slug of multiBrokerRecordings()) verdicts.push(await originVerdict(slug))
  console.log('| recording | fault | origin named (first is the answer) | |')
  console.log('|---|---|---|---|')
  for (const v of verdicts) {
    const fault = v.expected === undefined ? 'none (negative control)' : `broker ${v.faultBroker} (\`${v.expected}\`)`
    const got = v.clusterCause ? `the cluster: \`${v.clusterCause}\`` : v.origins.map((b) => `broker ${b}`).join(', ') || 'none'
    console.log(`| \`${v.slug}\` | ${fault} | ${got} | ${v.right ? '✓' : '✗'} |`)
  }
  const faults = verdicts.filter((v) => v.expected !== undefined)
  console.log(`\nfaults: ${faults.filter((v) => v.right).length} of ${faults.length} right; negative controls quiet: ${verdicts.filter((v) => v.expected === undefined && v.right).length} of ${verdicts.filter((v) => v.expected === undefined).length}`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
