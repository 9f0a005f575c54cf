import { readFileSync } from 'node:fs'

/** Resident memory of one process in KiB (VmRSS), 0 once it has gone. */
function rssKb(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : 0
  } catch {
    return 0
  }
}

/**
 * Samples the summed resident memory of a changing set of processes (brokers restart with new pids)
 * every interval and keeps the peak, for the "memory" column of the lab table.
 */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined
  peakKb = 0

  constructor(private readonly pids: () => number[], private readonly intervalMs = 1_000) {}

  start(): void {
    const tick = () => {
      const total = this.pids().reduce((sum, pid) => sum + (pid > 0 ? rssKb(pid) : 0), 0)
      if (total > this.peakKb) this.peakKb = total
    }
    tick()
    this.timer = setInterval(tick, this.intervalMs)
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  /** The peak in MiB, rounded. */
  get peakMb(): number {
    return Math.round(this.peakKb / 1024)
  }
}
