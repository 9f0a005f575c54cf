import os from 'node:os'
import type { Signal } from '../../signals/signal.js'
import { ProcReadError, procStateName, readProcStats, resolvePid, type ProcStats } from './proc-stats.js'
import { diskSpaceSignals, readDiskSpace } from './disk-space.js'

/**
 * The host agent's loop: every interval, read one broker process's /proc numbers and ship them as
 * fd.open, fd.max, mmap.count and mmap.max, with the process's state (process.state: a SIGSTOPped
 * broker reads T, one stuck in uninterruptible I/O D) and the CPU time it used since the last
 * sample (process.cpu: a frozen host shows none). A process that is gone (or a pid file that lies)
 * is reported once as process.gone and source.stale, and the agent keeps trying, so a restarted
 * broker is picked up.
 */
export type HostAgentOptions = {
  cluster: string
  broker: string
  /** A pid or a pid file path. */
  pid: string
  sink: (signals: Signal[]) => Promise<void> | void
  now?: () => number
  procRoot?: string
  host?: string
  /**
   * The broker's log dirs: each reading also ships the free and total bytes of the file system under
   * each (statfs: disk.avail, disk.size), also while the process is gone, since a full disk is a reason
   * a broker dies.
   */
  logDirs?: readonly string[]
}

/** The outcome of one sample. */
export type SampleOutcome = { ok: true; stats: ProcStats; signals: Signal[] } | { ok: false; error: string; signals: Signal[] }

/** Reads and ships one broker's /proc numbers. */
export class HostAgent {
  stale = false
  /** The previous sample's CPU time, to turn the next one into a share of wall time. */
  private lastCpu?: { pid: number; at: number; cpuMs: number }
  private readonly now: () => number
  private readonly host: string

  constructor(private readonly options: HostAgentOptions) {
    this.now = options.now ?? Date.now
    this.host = options.host ?? os.hostname()
  }

  /** Converts one reading to the catalogue's signals. */
  toSignals(stats: ProcStats, at: number): Signal[] {
    const source = `agent:${this.host}:/proc/${stats.pid}`
    const base = { at, cluster: this.options.cluster, broker: this.options.broker, source }
    const out: Signal[] = [
      { ...base, name: 'fd.open', value: stats.fdOpen },
      { ...base, name: 'mmap.count', value: stats.mmapCount },
    ]
    if (stats.fdMax !== undefined) out.push({ ...base, name: 'fd.max', value: stats.fdMax })
    if (stats.mmapMax !== undefined) out.push({ ...base, name: 'mmap.max', value: stats.mmapMax })
    const pid = String(stats.pid)
    if (stats.state !== undefined) {
      const state = procStateName(stats.state)
      out.push({ ...base, name: 'process.state', labels: { state, pid }, text: `broker ${this.options.broker}'s process ${pid} is ${state} (${stats.state} in /proc/${pid}/stat)` })
    }
    if (stats.cpuMs !== undefined) {
      const prev = this.lastCpu
      if (prev && prev.pid === stats.pid && at > prev.at) out.push({ ...base, name: 'process.cpu', value: Math.max(0, stats.cpuMs - prev.cpuMs) / (at - prev.at), labels: { pid } })
      this.lastCpu = { pid: stats.pid, at, cpuMs: stats.cpuMs }
    }
    return out
  }

  /** One reading, shipped; never throws for a missing process. */
  async sampleOnce(): Promise<SampleOutcome> {
    const at = this.now()
    const disks = this.options.logDirs?.length
      ? diskSpaceSignals((await readDiskSpace(this.options.logDirs)).readings, at, { cluster: this.options.cluster, broker: this.options.broker, host: this.host })
      : []
    try {
      const pid = await resolvePid(this.options.pid)
      const stats = await readProcStats(pid, this.options.procRoot)
      const signals = [...this.toSignals(stats, at), ...disks]
      await this.options.sink(signals)
      this.stale = false
      return { ok: true, stats, signals }
    } catch (err) {
      if (!(err instanceof ProcReadError)) throw err
      const signals: Signal[] = []
      if (!this.stale) {
        this.stale = true
        if (err.code === 'no-process') {
          signals.push({
            name: 'process.gone',
            at,
            cluster: this.options.cluster,
            broker: this.options.broker,
            labels: { pid: this.options.pid },
            source: `agent:${this.host}`,
            text: `broker ${this.options.broker}'s process is gone: ${err.message}`,
          })
        }
        signals.push({
          name: 'source.stale',
          at,
          cluster: this.options.cluster,
          broker: this.options.broker,
          labels: { target: `proc:${this.options.pid}` },
          source: `agent:${this.host}`,
          text: `host agent cannot read broker ${this.options.broker}: ${err.message}`,
        })
      }
      for (const d of disks) signals.push(d)
      if (signals.length) await this.options.sink(signals)
      return { ok: false, error: err.message, signals }
    }
  }
}
