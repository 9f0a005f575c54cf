import { statfs } from 'node:fs/promises'
import type { Signal } from '../../signals/signal.js'

/** Free and total bytes of the file system holding one log dir, as the broker's user sees them. */
export type DiskSpace = { path: string; availBytes: number; sizeBytes: number }

/**
 * statfs(2) of each log dir: `bavail` (the blocks an unprivileged process may still use, what a broker
 * not running as root can fill) and `blocks`, times the block size. A dir that cannot be read is left
 * out of this reading and named in `errors`, so one unmounted dir does not hide the others.
 */
export async function readDiskSpace(dirs: readonly string[]): Promise<{ readings: DiskSpace[]; errors: string[] }> {
  const readings: DiskSpace[] = []
  const errors: string[] = []
  await Promise.all(
    dirs.map(async (path) => {
      try {
        const s = await statfs(path)
        readings.push({ path, availBytes: s.bavail * s.bsize, sizeBytes: s.blocks * s.bsize })
      } catch (err) {
        errors.push(`${path}: ${(err as Error).message}`)
      }
    }),
  )
  readings.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return { readings, errors }
}

/** Where a reading's signals belong. */
export type DiskSignalScope = { cluster: string; broker: string; host: string }

/** One statfs reading of the log dirs as disk.avail and disk.size, labelled with the dir. */
export function diskSpaceSignals(readings: readonly DiskSpace[], at: number, scope: DiskSignalScope): Signal[] {
  const base = { at, cluster: scope.cluster, broker: scope.broker, source: `agent:${scope.host}:statfs` }
  return readings.flatMap((r) => [
    { ...base, name: 'disk.avail', value: r.availBytes, labels: { path: r.path } },
    { ...base, name: 'disk.size', value: r.sizeBytes, labels: { path: r.path } },
  ])
}
