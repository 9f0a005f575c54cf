import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { emptySourceStats, readSignalSources } from '../../adapters/incident.js'
import { parseRules } from '../../dsl/index.js'
import { diagnoseGroup, type GroupCauseKind } from '../../engine/consumer-lag-explain.js'
import type { LagStatus } from '../../engine/consumer-lag-status.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { REPO_DIR } from '../../lab/kafka-runtime.js'
import { readLabExpectation } from '../../lab/run-scenario.js'

/**
 * `why --group` on each consumer-lag recording of the real-Kafka lab: the group's status by Burrow's
 * rules, at the end of the recording or at a moment given relative to the fault, and the kind and
 * wording of the top-ranked cause.
 */
const GROUP = 'payments-ledger'
const rules = readdirSync(join(REPO_DIR, 'rules'))
  .filter((f) => f.endsWith('.rules'))
  .flatMap((f) => parseRules(readFileSync(join(REPO_DIR, 'rules', f), 'utf8'), `rules/${f}`).rules)

type Case = { slug: string; status: LagStatus; kind: GroupCauseKind; cause: RegExp; afterFaultMs?: number }
const CASES: Case[] = [
  { slug: 'lab-consumer-paused', status: 'STOPPED', kind: 'consumers', cause: /stopped heartbeating/ },
  { slug: 'lab-consumer-stopped', status: 'STOPPED', kind: 'consumers', cause: /has no members/ },
  { slug: 'lab-consumer-stalled', status: 'STALLED', kind: 'consumers', cause: /same offsets without progress/ },
  // Judged 35 s into the 40 s burst: the group is behind because producers sped up.
  { slug: 'lab-consumer-slow-burst', status: 'WARNING', kind: 'producers', cause: /a burst, not a slower consumer/, afterFaultMs: 35_000 },
]

async function load(dir: string): Promise<{ store: MemoryStore; from: number; to: number }> {
  const store = new MemoryStore()
  let from = Infinity
  let to = -Infinity
  for await (const batch of readSignalSources([dir], { stats: emptySourceStats() })) {
    await store.append(batch)
    for (const s of batch) {
      if (s.at < from) from = s.at
      if (s.at > to) to = s.at
    }
  }
  return { store, from, to }
}

describe('lab/recorded consumer lag (why --group)', () => {
  it.each(CASES)('$slug: $status, caused by its $kind', async (c) => {
    const dir = join(REPO_DIR, 'test', 'incidents', c.slug)
    const { store, from, to } = await load(dir)
    const at = c.afterFaultMs === undefined ? to : Date.parse(readLabExpectation(dir).faultAt) + c.afterFaultMs
    const d = await diagnoseGroup(rules, store, { cluster: 'lab', group: GROUP, from, to: at, now: at })
    expect(d.status).toBe(c.status)
    expect(d.causes[0]?.kind).toBe(c.kind)
    expect(d.causes[0]?.title).toMatch(c.cause)
    expect(d.totalLag).toBeGreaterThan(1_000)
  }, 60_000)
})
