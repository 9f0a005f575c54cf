import { join } from 'node:path'
import { pause, runFaultScenario } from '../fault-scenario.js'
import { ioErrorVolumeUnavailable, mountIoErrorVolume, type IoErrorVolume } from '../faults/volumes.js'
import type { Scenario } from '../scenario.js'
import { countLines, createTopic } from '../session-stall.js'

const BROKER = 3
const VOLUME_MB = 256
const OFFLINE_MS = 180_000

/**
 * One of two log dirs fails (JBOD): broker 3 keeps its partitions in two log dirs, the second an ext4
 * on a loop device that is shut down under load, so every operation under it fails with EIO. The
 * broker takes that dir offline and keeps serving from the other (LogManager OfflineLogDirectoryCount
 * 1); the topic has one replica per partition, so the partitions in the failed dir have no other copy
 * and the controller counts them offline (OfflinePartitionsCount). A second topic of two replicas
 * with min.insync.replicas=2 has partitions left under their minimum ISR (UnderMinIsrPartitionCount).
 */
export const scenario: Scenario = {
  name: 'log-dir-offline',
  summary: `broker ${BROKER} with two log dirs, the second on a loop-mounted ext4 switched to EIO under load; topic of RF 1: the dir goes offline, its partitions with it, the broker keeps running (${OFFLINE_MS / 1000} s)`,
  needs: { seconds: OFFLINE_MS / 1000 + 50, memoryMb: 1_300, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  requires: 'root, loop devices, ext4, xfs_io (xfsprogs)',
  unavailable: ioErrorVolumeUnavailable,
  run: (ctx) => {
    let volume: IoErrorVolume | undefined
    const secondDir = join(ctx.workDir, `broker-${BROKER}`, 'data2')
    return runFaultScenario(ctx, {
      slug: 'lab-log-dir-offline',
      title: 'one of a broker\'s two log dirs fails (EIO): the dir and its single-replica partitions go offline, the broker keeps running',
      brokers: 3,
      cluster: { brokerConfigById: { [BROKER]: { 'log.dirs': `${join(ctx.workDir, `broker-${BROKER}`, 'data')},${secondDir}` } } },
      topic: { name: 'orders', partitions: 12, replicationFactor: 1 },
      producer: { acks: '1', recordsPerSec: 500, recordBytes: 1_024 },
      warmupMs: 10_000,
      prepare: (workDir) => {
        volume = mountIoErrorVolume(secondDir, join(workDir, 'volume.img'), VOLUME_MB)
        return () => volume?.unmount()
      },
      pickTarget: () => BROKER,
      async inject(env) {
        // A second topic of two replicas and min.insync.replicas=2: its partitions with a replica in the
        // failed dir fall under their minimum ISR on the brokers that lead them.
        try {
          await createTopic(env.cluster, 'payments', 12, 2, { 'min.insync.replicas': '2' })
        } catch (err) {
          // On a loaded machine the controller can answer after the request's timeout with the topic made.
          const detail = `${(err as Error).message} ${JSON.stringify((err as { errors?: unknown }).errors ?? '')}`
          if (!/timed out|TIMED_OUT|already exists|ALREADY_EXISTS/i.test(detail)) throw new Error(`creating topic payments: ${detail}`)
          env.ctx.log(`topic payments: ${detail.slice(0, 200)}; going on`)
        }
        await pause(10_000)
        volume!.failWithIoErrors()
      },
      async aftermath() {
        await pause(OFFLINE_MS)
      },
      measure(env) {
        const log = env.target.serverLog
        return {
          'second log dir': `${VOLUME_MB} MiB ext4 on a loop device, shut down with EXT4_IOC_SHUTDOWN (xfs_io -x -c "shutdown -f")`,
          '"Input/output error" lines': countLines(log, /Input\/output error/),
          'LogDirFailureChannel errors': countLines(log, /\(org\.apache\.kafka\.storage\.internals\.log\.LogDirFailureChannel\)/),
          'broker still running': env.target.process.alive() ? 'yes' : 'no',
          'offline for (s)': OFFLINE_MS / 1000,
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `broker ${BROKER} had two log dirs (\`log.dirs\`): its usual one and a second, an ext4 file system on a loop device (a ${VOLUME_MB} MiB image file) mounted before the broker started. Topic \`orders\` had 12 partitions of one replica each, so about four of them lived on broker ${BROKER}, split between its two dirs. Just before the fault a second topic, \`payments\` (12 partitions, two replicas, \`min.insync.replicas=2\`, no traffic), was created. The second dir's file system was then shut down (\`xfs_io -x -c "shutdown -f"\`, the EXT4_IOC_SHUTDOWN ioctl: what ext4 does itself when its journal hits an I/O error), so every operation under it returned EIO, and the cluster was watched for ${OFFLINE_MS / 1000} s.`,
      expect: { topRule: 'log_dir_failure', absentRules: ['disk_full', 'log_dir_permission_denied', 'offline_log_directories'] },
    })
  },
}
