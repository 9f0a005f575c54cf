import { closeSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { awaitLogDirHalt, runFaultScenario, type FaultEnv } from '../fault-scenario.js'
import { mountTmpfs, tmpfsUnavailable } from '../faults/volumes.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const BROKER = 3
const VOLUME_MB = 96
function ballastPath(env: FaultEnv): string {
  return join(env.target.dataDir, 'ballast')
}

/** Appends 1 MiB blocks to the ballast until the volume refuses (ENOSPC); returns the MiB written. */
function fillVolume(path: string): number {
  const block = Buffer.alloc(1024 * 1024, 0x5a)
  const fd = openSync(path, 'w')
  let mb = 0
  try {
    for (;;) {
      writeSync(fd, block)
      mb++
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err
  } finally {
    closeSync(fd)
  }
  return mb
}

let ballastMb = 0

/**
 * A log dir on a small tmpfs filled to ENOSPC: broker 3's data dir is a 96 MiB tmpfs; under load a
 * ballast file takes all of it, as a runaway file beside the log dir does, and the next
 * appends fail with "No space left on device".
 */
export const scenario: Scenario = {
  name: 'disk-full',
  summary: `broker ${BROKER}'s log dir on a ${VOLUME_MB} MiB tmpfs, filled to ENOSPC by a ballast file under acks=all load: the log dir fails and the broker shuts down`,
  needs: { seconds: 85, memoryMb: 1_300, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  watchable: true,
  requires: 'root (tmpfs mount)',
  unavailable: tmpfsUnavailable,
  run: (ctx) =>
    runFaultScenario(ctx, {
      slug: 'lab-disk-full',
      title: 'a log dir fills to ENOSPC (No space left on device)',
      brokers: 3,
      topic: { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
      producer: { acks: 'all', recordsPerSec: 1_000, recordBytes: 1_024 },
      warmupMs: 10_000,
      prepare: (_work, dataDirOf) => {
        const volume = mountTmpfs(dataDirOf(BROKER), VOLUME_MB)
        return () => volume.unmount()
      },
      pickTarget: () => BROKER,
      async inject(env) {
        ballastMb = fillVolume(ballastPath(env))
      },
      aftermath: (env) => awaitLogDirHalt(env, 'the disk filled'),
      measure(env) {
        const log = env.target.serverLog
        return {
          'tmpfs size (MiB)': VOLUME_MB,
          'ballast written until ENOSPC (MiB)': ballastMb,
          '"No space left on device" lines': countLines(log, /No space left on device/),
          'LogDirFailureChannel errors': countLines(log, /\(org\.apache\.kafka\.storage\.internals\.log\.LogDirFailureChannel\)/),
          '"Shutdown broker because all log dirs" lines': countLines(log, /Shutdown broker because all log dirs in .* have failed/),
          'broker exited': env.target.process.alive() ? 'no' : 'yes',
          'producer NOT_ENOUGH_REPLICAS / timeouts lines': countLines(join(env.clientsDir, 'producer.log'), /NOT_ENOUGH_REPLICAS|NotEnoughReplicas|TimeoutException/),
        }
      },
      whatWasDone: () =>
        `broker ${BROKER}'s log dir was a ${VOLUME_MB} MiB tmpfs (mounted over it before the broker started); a file was written into it in 1 MiB blocks until the volume refused (ENOSPC), so the broker's next appends, index writes and checkpoints ran out of space.`,
      expect: { topRule: 'disk_full', absentRules: ['log_dir_failure'] },
    }),
}
