import { join } from 'node:path'
import { awaitLogDirHalt, runFaultScenario } from '../fault-scenario.js'
import { ioErrorVolumeUnavailable, mountIoErrorVolume, type IoErrorVolume } from '../faults/volumes.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const BROKER = 3
const VOLUME_MB = 256

/**
 * A disk that starts returning I/O errors: broker 3's log dir is an ext4 on a loop device; under load
 * the file system is shut down (the kernel's own reaction to a fatal journal I/O error), so every
 * later write, fsync and open under it fails with EIO.
 */
export const scenario: Scenario = {
  name: 'disk-io-error',
  summary: `broker ${BROKER}'s log dir on a loop-mounted ext4 that is switched to EIO under load: appends fail with Input/output error, the log dir fails and the broker shuts down`,
  needs: { seconds: 100, memoryMb: 1_300, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  requires: 'root, loop devices, ext4, xfs_io (xfsprogs)',
  unavailable: ioErrorVolumeUnavailable,
  run: (ctx) => {
    let volume: IoErrorVolume | undefined
    return runFaultScenario(ctx, {
      slug: 'lab-disk-io-error',
      title: 'a log dir\'s disk starts returning I/O errors (EIO)',
      brokers: 3,
      topic: { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
      producer: { acks: 'all', recordsPerSec: 1_000, recordBytes: 1_024 },
      warmupMs: 10_000,
      prepare: (workDir, dataDirOf) => {
        volume = mountIoErrorVolume(dataDirOf(BROKER), join(workDir, 'volume.img'), VOLUME_MB)
        return () => volume?.unmount()
      },
      pickTarget: () => BROKER,
      async inject() {
        volume!.failWithIoErrors()
      },
      aftermath: (env) => awaitLogDirHalt(env, 'its disk failed'),
      measure(env) {
        const log = env.target.serverLog
        return {
          'volume': `${VOLUME_MB} MiB ext4 on a loop device, shut down with EXT4_IOC_SHUTDOWN (xfs_io -x -c "shutdown -f")`,
          '"Input/output error" lines': countLines(log, /Input\/output error/),
          'LogDirFailureChannel errors': countLines(log, /\(org\.apache\.kafka\.storage\.internals\.log\.LogDirFailureChannel\)/),
          '"Shutdown broker because all log dirs" lines': countLines(log, /Shutdown broker because all log dirs in .* have failed/),
          'broker exited': env.target.process.alive() ? 'no' : 'yes',
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `broker ${BROKER}'s log dir was an ext4 file system on a loop device (a ${VOLUME_MB} MiB image file), mounted over it before the broker started. The file system was shut down (\`xfs_io -x -c "shutdown -f"\`, the EXT4_IOC_SHUTDOWN ioctl: what ext4 does itself when its journal hits an I/O error), so from then on every operation under it returned EIO.`,
      expect: { topRule: 'log_dir_failure', absentRules: ['disk_full', 'log_dir_permission_denied'] },
    })
  },
}
