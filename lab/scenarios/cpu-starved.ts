import { join } from 'node:path'
import { pause, runFaultScenario } from '../fault-scenario.js'
import { cgroupUnavailable, makeCgroup, type LabCgroup } from '../faults/cgroups.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const BROKER = 3
const PERIOD_US = 100_000
/** The broker's share of one core while starved (cpu.cfs_quota_us / cpu.cfs_period_us). */
const QUOTA_PERCENT = 5
const STARVED_MS = 150_000

/**
 * A broker starved of CPU by its cgroup: under acks=all load, broker 3's process (all its threads,
 * through cgroup.procs) is moved into a cpu cgroup whose CFS quota is a few percent of one core, as a
 * container's CPU limit set far below what the broker needs. Its request handlers, network threads
 * and the JVM's own threads all wait for the quota.
 */
export const scenario: Scenario = {
  name: 'cpu-starved',
  summary: `broker ${BROKER}'s cgroup CPU quota cut to ${QUOTA_PERCENT}% of one core (cpu.cfs_quota_us) for ${STARVED_MS / 1000} s under acks=all load`,
  needs: { seconds: 230, memoryMb: 1_300, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  requires: 'root, cgroup v1 cpu controller (CFS quota)',
  unavailable: () => cgroupUnavailable('cpu', ['cpu.cfs_quota_us', 'cpu.cfs_period_us', 'cpu.stat']),
  run: (ctx) => {
    let group: LabCgroup | undefined
    let stat = ''
    return runFaultScenario(ctx, {
      slug: 'lab-cpu-starved',
      title: 'a broker starved of CPU by its cgroup quota',
      brokers: 3,
      topic: { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
      producer: { acks: 'all', recordsPerSec: 1_000, recordBytes: 1_024 },
      warmupMs: 15_000,
      pickTarget: () => BROKER,
      async inject(env) {
        const g = makeCgroup('cpu', ['cpu.cfs_quota_us'])
        group = g
        try {
          g.set('cpu.cfs_period_us', PERIOD_US)
          g.set('cpu.cfs_quota_us', Math.round((PERIOD_US * QUOTA_PERCENT) / 100))
          g.add(env.target.pid)
        } catch (err) {
          g.release()
          throw err
        }
        return () => g.release()
      },
      async aftermath() {
        await pause(STARVED_MS)
        stat = group?.read('cpu.stat') ?? ''
      },
      measure(env) {
        const log = env.target.serverLog
        const peers = env.cluster.brokers.filter((b) => b.id !== BROKER)
        const field = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(stat)?.[1] ?? NaN)
        return {
          'CPU quota (cfs_quota_us / cfs_period_us)': `${(PERIOD_US * QUOTA_PERCENT) / 100} / ${PERIOD_US} µs (${QUOTA_PERCENT}% of one core)`,
          'starved for (s)': STARVED_MS / 1000,
          'periods throttled / periods (cpu.stat)': `${field('nr_throttled')} / ${field('nr_periods')}`,
          'time throttled (cpu.stat throttled_time, s)': (field('throttled_time') / 1e9).toFixed(1),
          '"Shrinking ISR" lines (other brokers)': peers.reduce((n, b) => n + countLines(b.serverLog, /Shrinking ISR/), 0),
          '"Shrinking ISR" lines (starved broker)': countLines(log, /Shrinking ISR/),
          'session expiry lines (starved broker)': countLines(log, /Session expired|has expired|Client session timed out/),
          'safepoints of 1 s or more (starved broker)': countLines(env.target.gcLog, /(?:Reaching safepoint|Total): [1-9]\d{9,} ns/),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `broker ${BROKER}'s process, all its threads, was moved (\`cgroup.procs\`) into a new cgroup v1 \`cpu\` group with \`cpu.cfs_period_us=${PERIOD_US}\` and \`cpu.cfs_quota_us=${(PERIOD_US * QUOTA_PERCENT) / 100}\`: ${QUOTA_PERCENT}% of one core, as a container CPU limit set far below the broker's need. It stayed there for ${STARVED_MS / 1000} s, until the files were copied; nothing else on the host was limited.`,
      expect: { topRule: 'cpu_starved', absentRules: ['stw_pause_session_expiry', 'gc_pause_session_expiry'] },
    })
  },
}
