import { join } from 'node:path'
import { pause, runFaultScenario, ORDERS_LOAD } from '../fault-scenario.js'
import { dropUserTraffic, randomDropUnavailable } from '../faults/network.js'
import { firstReason, needsCommand, UNPRIVILEGED } from '../faults/requirements.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'
import { waitFor } from '../wait-for.js'

const FOLLOWER = 3
const LEADER = 1
const LAG_TIME_MS = 10_000
const LOSS = 0.9
const CYCLES = 4

/**
 * ISR expansions that took the follower back in: 3.x logs them as "ISR updated to 1,2,3 and version
 * updated to N" (older releases "Expanding ISR from … to …").
 */
function rejoins(serverLog: string): number {
  return countLines(serverLog, new RegExp(`Expanding ISR from \\S+ to (?:\\S*,)?${FOLLOWER}\\b|ISR updated to (?:[\\d,]*,)?${FOLLOWER}(?:,[\\d,]*)? `))
}

/**
 * A follower whose path to the leaders turns lossy again and again: in each of four rounds 90 % of the
 * packets it sends to the other brokers' ports are dropped at random (iptables' statistic match, on the
 * follower's user) until the leader drops it from the ISR, then the loss stops until it is back in.
 * Its fetches crawl (TCP retransmits with a growing timeout) rather than stop; the leader's ISRs shrink
 * and expand over and over. No broker stops and nothing on the leader is slow.
 */
export const scenario: Scenario = {
  name: 'follower-slowed',
  summary: `broker ${FOLLOWER}'s packets to the other brokers dropped at random (${LOSS * 100} %) in ${CYCLES} rounds, each until it left the ISR, then not until it rejoined: ISR shrink/expand flapping on the leaders`,
  needs: { seconds: 160, memoryMb: 1_500, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  requires: 'root, iptables with the owner and statistic matches (broker run as nobody)',
  unavailable: () => firstReason(randomDropUnavailable(), needsCommand('setpriv', 'util-linux')),
  run: (ctx) => {
    const rounds: { lossyMs: number; clearMs: number }[] = []
    return runFaultScenario(ctx, {
      slug: 'lab-follower-slowed',
      title: 'a follower slowed by a lossy path, again and again: ISR shrink/expand flapping on the leaders',
      brokers: 3,
      cluster: { runAsById: { [FOLLOWER]: UNPRIVILEGED }, brokerConfig: { 'replica.lag.time.max.ms': String(LAG_TIME_MS) } },
      ...ORDERS_LOAD,
      pickTarget: () => LEADER,
      async inject(env) {
        const peers = env.cluster.brokers.filter((b) => b.id !== FOLLOWER)
        const shrinks = () => countLines(env.target.serverLog, /Shrinking ISR from/)
        const expands = () => rejoins(env.target.serverLog)
        let heal: (() => void) | undefined
        try {
          for (let i = 0; i < CYCLES; i++) {
            const s0 = shrinks()
            const t0 = Date.now()
            heal = dropUserTraffic(UNPRIVILEGED.uid, peers.map((b) => b.port), { probability: LOSS })
            await waitFor(() => shrinks() > s0, { timeoutMs: 40_000, intervalMs: 250, what: `round ${i + 1}: broker ${LEADER} shrinking an ISR` }).catch(() =>
              env.ctx.log(`round ${i + 1}: no ISR shrink on broker ${LEADER} within 40 s`),
            )
            // The other leader's partitions leave too (their timers run apart by a second or two).
            await pause(3_000)
            heal()
            heal = undefined
            const t1 = Date.now()
            const e0 = expands()
            await waitFor(() => expands() > e0, { timeoutMs: 30_000, intervalMs: 250, what: `round ${i + 1}: broker ${LEADER} expanding an ISR` }).catch(() =>
              env.ctx.log(`round ${i + 1}: no ISR expand on broker ${LEADER} within 30 s`),
            )
            await pause(3_000)
            rounds.push({ lossyMs: t1 - t0, clearMs: Date.now() - t1 })
          }
        } finally {
          heal?.()
        }
      },
      async aftermath() {
        await pause(10_000)
      },
      measure(env) {
        const peers = env.cluster.brokers.filter((b) => b.id !== FOLLOWER)
        const follower = env.cluster.brokers.find((b) => b.id === FOLLOWER)!
        return {
          'rounds (lossy ms / clear ms)': rounds.map((r) => `${r.lossyMs}/${r.clearMs}`).join(', '),
          'drop probability of the follower\'s packets to the leaders': LOSS,
          'replica.lag.time.max.ms': LAG_TIME_MS,
          '"Shrinking ISR" lines (leader broker 1)': countLines(env.target.serverLog, /Shrinking ISR from/),
          'ISR expansions taking broker 3 back in ("ISR updated to …,3,…", leader broker 1)': rejoins(env.target.serverLog),
          '"Shrinking ISR" lines (both leaders)': peers.reduce((n, b) => n + countLines(b.serverLog, /Shrinking ISR from/), 0),
          '"Error in response for fetch request" lines (follower)': countLines(follower.serverLog, /Error in response for fetch request/),
          'safepoints of 1 s or more (leader broker 1)': countLines(env.target.gcLog, /(?:Reaching safepoint|Total): [1-9]\d{9,} ns/),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `broker ${FOLLOWER} ran as \`nobody\` (uid ${UNPRIVILEGED.uid}). ${CYCLES} times, ${LOSS * 100} % of the TCP packets that user sent to the other brokers' ports on the loopback interface were dropped at random (\`iptables -A OUTPUT -o lo -p tcp --dport … -m owner --uid-owner ${UNPRIVILEGED.uid} -m statistic --mode random --probability ${LOSS} -j DROP\`: its fetch requests and its acknowledgements of the leaders' responses) until leader broker ${LEADER} logged an ISR shrink (\`replica.lag.time.max.ms=${LAG_TIME_MS}\`), plus 3 s; then the rules were deleted until broker ${LEADER} logged an ISR expand, plus 3 s. The follower's fetches crawled through TCP retransmissions; no broker stopped, ZooKeeper traffic was untouched, and nothing was done to the leaders.`,
      expect: { topRule: 'isr_flapping_slow_follower', absentRules: ['zk_session_expiry_no_pause', 'stw_pause_session_expiry', 'broker_cut_off_from_peers'] },
    })
  },
}
