import os from 'node:os'
import type { Signal } from '../../signals/signal.js'
import { ProcReadError, readProcStats, resolvePid, type ProcStats } from './proc-stats.js'

/**
 * The host agent's loop: every interval, read one broker process's /proc numbers and ship them as
 * fd.open, fd.max, mmap.count and mmap.max. A process that is gone (or a pid file that lies) is
 * reported once as source.stale, and the agent keeps trying, so a restarted broker is picked up.
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
}

/** The outcome of one sample. */
export type SampleOutcome = { ok: true; stats: ProcStats; signals: Signal[] } | { ok: false; error: string; signals: Signal[] }

/** Reads and ships one broker's /proc numbers. */
export class HostAgent {
  stale = false
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
    return out
  }

  /** One reading, shipped; never throws for a missing process. */
  async sampleOnce(): Promise<SampleOutcome> {
    const at = this.now()
    try {
      const pid = await resolvePid(this.options.pid)
      const stats = await readProcStats(pid, this.options.procRoot)
      const signals = this.toSignals(stats, at)
      await this.options.sink(signals)
      this.stale = false
      return { ok: true, stats, signals }
    } catch (err) {
      if (!(err instanceof ProcReadError)) throw err
      const signals: Signal[] = []
      if (!this.stale) {
        this.stale = true
        signals.push({
          name: 'source.stale',
          at,
          cluster: this.options.cluster,
          broker: this.options.broker,
          labels: { target: `proc:${this.options.pid}` },
          source: `agent:${this.host}`,
          text: `host agent cannot read broker ${this.options.broker}: ${err.message}`,
        })
        await this.options.sink(signals)
      }
      return { ok: false, error: err.message, signals }
    }
  }
}
