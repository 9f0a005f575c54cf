import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pause, runFaultScenario } from '../fault-scenario.js'
import { cgroupUnavailable, makeCgroup, type LabCgroup } from '../faults/cgroups.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'
import { waitFor } from '../wait-for.js'

const BROKER = 3
/** Memory the broker may still take beyond what it holds when the limit is set. */
const HEADROOM_MB = 32
/** While the broker lives, the limit is lowered to this much below its charge every few seconds. */
const STEP_MB = 4
const DOWN_MS = 15_000
const MIB = 1024 * 1024

/**
 * The kernel's lines about the OOM kill in the memory cgroup named `group`, from dmesg: from the
 * "invoked oom-killer" line before its "oom-kill:" line to the "Killed process" line after it.
 */
export function kernelOomLines(dmesg: string, group: string): string[] {
  const lines = dmesg.split('\n')
  const at = lines.findIndex((l) => l.includes('oom-kill:') && l.includes(`oom_memcg=/${group},`))
  if (at < 0) return []
  let from = at
  while (from > 0 && !lines[from].includes('invoked oom-killer')) from--
  const to = lines.findIndex((l, i) => i > at && l.includes('Killed process'))
  return lines.slice(from, to < 0 ? at + 1 : to + 1).filter((l) => /oom-kill|invoked oom-killer|Memory cgroup out of memory|Killed process|memory: usage/.test(l))
}

function dmesgText(): string {
  const r = spawnSync('dmesg', [], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout : ''
}

/**
 * A broker killed by the kernel's OOM killer: broker 3's process is moved into a memory cgroup (its
 * pages charged to it) whose limit is set just above what it uses, as a container memory limit below
 * the broker's heap plus its native memory. As the JVM touches more of its heap under load the group
 * runs out and the kernel kills the JVM with SIGKILL: no OutOfMemoryError, no shutdown, the log just
 * stops. It is restarted 15 s later, outside the group, into log recovery.
 */
export const scenario: Scenario = {
  name: 'oom-killed',
  summary: `broker ${BROKER} moved into a memory cgroup of ${HEADROOM_MB} MiB, tightened to its charge under load: the kernel's OOM killer SIGKILLs it; restarted ${DOWN_MS / 1000} s later into log recovery`,
  needs: { seconds: 150, memoryMb: 1_300, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  requires: 'root, cgroup v1 memory controller',
  unavailable: () => cgroupUnavailable('memory', ['memory.limit_in_bytes', 'memory.usage_in_bytes', 'memory.oom_control']),
  run: (ctx) => {
    let group: LabCgroup | undefined
    let usageMb = 0
    let limitMb = 0
    let killedAfterMs = -1
    let exit: number | string = ''
    let oomControl = ''
    let kernel: string[] = []
    return runFaultScenario(ctx, {
      slug: 'lab-oom-killed',
      title: 'a broker killed by the kernel OOM killer at its memory cgroup limit, restarted into log recovery',
      brokers: 3,
      topic: { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
      producer: { acks: 'all', recordsPerSec: 1_000, recordBytes: 1_024 },
      warmupMs: 12_000,
      pickTarget: () => BROKER,
      async inject(env) {
        const g = makeCgroup('memory', ['memory.limit_in_bytes'])
        group = g
        try {
          // Pages already touched stay charged where they were (this kernel's cgroup v1 no longer moves
          // charges: memory.move_charge_at_immigrate refuses anything but 0), so the group counts what the
          // broker takes from now on: heap regions it touches for the first time, buffers, page cache.
          g.add(env.target.pid)
          g.set('memory.limit_in_bytes', HEADROOM_MB * MIB)
          limitMb = HEADROOM_MB
        } catch (err) {
          g.release()
          throw err
        }
        const target = env.target
        const exited = target.process.exited.then((code) => {
          exit = code
          killedAfterMs = Date.now() - env.faultAt
        })
        // Tighten while it lives: down to what it uses now, so the next page it needs is over the limit
        // (the kernel first reclaims page cache, then kills).
        while (target.process.alive() && Date.now() - env.faultAt < 60_000) {
          await Promise.race([exited, pause(4_000)])
          if (!target.process.alive()) break
          usageMb = Math.round(Number(g.read('memory.usage_in_bytes')) / MIB)
          limitMb = Math.max(Math.min(limitMb, usageMb) - STEP_MB, STEP_MB)
          try {
            g.set('memory.limit_in_bytes', limitMb * MIB)
          } catch {
            // EBUSY: the kernel could not reclaim down to it; the next charge meets the old limit
          }
        }
        oomControl = g.read('memory.oom_control')
        return () => g.release()
      },
      async aftermath(env) {
        if (env.target.process.alive()) throw new Error(`broker ${BROKER} was not OOM-killed within 60 s at a ${limitMb} MiB limit`)
        kernel = kernelOomLines(dmesgText(), group!.path.split('/').pop()!)
        await pause(DOWN_MS)
        env.ctx.log(`restarting broker ${BROKER}`)
        await env.cluster.restartBroker(BROKER)
        await waitFor(() => countLines(env.target.serverLog, /Recovering unflushed segment|Loading producer state/) > 0, { timeoutMs: 5_000, what: 'log recovery lines' }).catch(() => undefined)
        await pause(15_000)
        // The kernel's record of the kill, kept beside the recording (no source reads kernel logs).
        mkdirSync(join(env.ctx.workDir, 'host'), { recursive: true })
        writeFileSync(join(env.ctx.workDir, 'host', 'kernel-oom.log'), kernel.join('\n') + '\n')
      },
      extraFiles: (env) => [{ from: join(env.ctx.workDir, 'host', 'kernel-oom.log'), to: 'host/kernel-oom.log', listed: false }],
      measure(env) {
        const log = env.target.serverLog
        const peers = env.cluster.brokers.filter((b) => b.id !== BROKER)
        return {
          'kernel\'s "memory: usage, limit, failcnt" at the kill': /memory: (usage \d+kB, limit \d+kB, failcnt \d+)/.exec(kernel.join('\n'))?.[1] ?? '–',
          'memory.limit_in_bytes at the kill (MiB)': limitMb,
          'killed after (s)': (killedAfterMs / 1000).toFixed(1),
          'exit': String(exit),
          'memory.oom_control': oomControl.replace(/\n/g, ', '),
          'kernel lines about the kill (dmesg)': kernel.length,
          'OutOfMemoryError lines (killed broker)': countLines(log, /OutOfMemoryError/),
          '"Recovering unflushed segment" lines (restarted broker)': countLines(log, /Recovering unflushed segment/),
          'fetch errors on the other brokers ("Error in response for fetch request" / "Connection to node 3")': peers.reduce((n, b) => n + countLines(b.serverLog, /Error in response for fetch request|Connection to node 3 .*could not be established|Error sending fetch request/), 0),
          '"Shrinking ISR" lines (other brokers)': peers.reduce((n, b) => n + countLines(b.serverLog, /Shrinking ISR/), 0),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `broker ${BROKER}'s process was moved (\`cgroup.procs\`) into a new cgroup v1 \`memory\` group with \`memory.limit_in_bytes\` ${HEADROOM_MB} MiB. The pages it had already touched stayed charged where they were (this kernel's cgroup v1 no longer moves charges), so the limit counted what it took from then on: heap regions touched for the first time, buffers, page cache. Every 4 s while it lived the limit was lowered to ${STEP_MB} MiB below the group's charge (there is no swap). The kernel's OOM killer killed the JVM with SIGKILL ${(killedAfterMs / 1000).toFixed(1)} s after the limit was set, at ${limitMb} MiB; ${DOWN_MS / 1000} s later it was started again with the same command line, outside the group. The kernel's own lines about the kill are in \`host/kernel-oom.log\` (from \`dmesg\`; not listed as a source).`,
      expect: { topRule: 'broker_killed_unclean_restart', absentRules: ['heap_oom', 'disk_full', 'log_dir_failure'] },
    })
  },
}
