import type { Rule } from '../../dsl/ast.js'
import { diagnoseGroup } from '../../engine/consumer-lag-explain.js'
import type { Store } from '../../engine/store/store.js'
import { renderGroupDiagnosis } from '../render-group.js'
import { CommandError, UsageError } from '../usage-error.js'

/**
 * `kafka-why why --group G`: the consumer group's status by Burrow's rules and the ranked cause of
 * its lag (its consumers, the brokers leading its partitions, its producers). The group's cluster is
 * the one whose commits name it, unless --cluster says.
 */
export async function answerGroup(
  rules: readonly Rule[],
  store: Store,
  o: { group: string; cluster?: string; from?: number; to: number; sinceMs?: number; json: boolean; verbose: boolean },
): Promise<number> {
  const clusters = o.cluster !== undefined ? [o.cluster] : await clustersOfGroup(store, o.group, o.to)
  if (clusters.length === 0) throw new CommandError(`no commits of consumer group '${o.group}' in the store (the consumer-lag adapter records them from __consumer_offsets)`)
  if (clusters.length > 1) throw new UsageError(`consumer group '${o.group}' commits in clusters ${clusters.join(', ')}: pass --cluster`)
  const from = o.sinceMs !== undefined ? o.to - o.sinceMs : (o.from ?? o.to - 3_600_000)
  const d = await diagnoseGroup(rules, store, { cluster: clusters[0], group: o.group, from, to: o.to, now: o.to })
  if (o.json) console.log(JSON.stringify(d, null, 2))
  else console.log(renderGroupDiagnosis(d, { verbose: o.verbose }))
  return d.status === undefined ? 1 : 0
}

/** Clusters in which the group committed in the last day before `to`. */
async function clustersOfGroup(store: Store, group: string, to: number): Promise<string[]> {
  const refs = await store.brokers()
  const clusters = [...new Set(refs.map((r) => r.cluster))]
  const found: string[] = []
  for (const cluster of clusters) {
    const scopes = [undefined, ...refs.filter((r) => r.cluster === cluster).map((r) => r.broker)]
    for (const broker of scopes) {
      const byName = await store.querySeries({ cluster, ...(broker !== undefined ? { broker } : {}), names: ['group.commit'], from: to - 86_400_000, to })
      if ((byName.get('group.commit') ?? []).some((s) => s.labels?.group === group)) {
        found.push(cluster)
        break
      }
    }
  }
  return found
}
