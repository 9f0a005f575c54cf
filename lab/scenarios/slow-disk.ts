import { join } from 'node:path'
import { pause, runFaultScenario } from '../fault-scenario.js'
import { deviceThrottleUnavailable, throttleDevice } from '../faults/cgroups.js'
import { firstReason } from '../faults/requirements.js'
import { loopVolumeUnavailable, mountIoErrorVolume, type IoErrorVolume } from '../faults/volumes.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const BROKER = 3
const VOLUME_MB = 512
const WRITE_IOPS = 20
const WRITE_BPS = 1024 * 1024
const SLOW_MS = 320_000

/**
 * A slow disk: broker 3's log dir is an ext4 on a loop device, and under load every write to that
 * device is throttled (blkio throttle in the root cgroup: the broker, the kernel's flusher and the
 * ext4 journal thread alike) to 20 writes and 1 MiB a second. The topic flushes every message
 * (flush.messages=1), so each append, the leader's and the followers', waits for the disk.
 */
export const scenario: Scenario = {
  name: 'slow-disk',
  summary: `broker ${BROKER}'s log dir on a loop device throttled to ${WRITE_IOPS} writes/s and ${WRITE_BPS / 1024 / 1024} MiB/s (blkio) for ${SLOW_MS / 1000} s, topic with flush.messages=1`,
  needs: { seconds: SLOW_MS / 1000 + 70, memoryMb: 1_400, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  requires: 'root, loop devices, ext4, cgroup v1 blkio throttling',
  unavailable: () => firstReason(loopVolumeUnavailable(), deviceThrottleUnavailable()),
  run: (ctx) => {
    let volume: IoErrorVolume | undefined
    return runFaultScenario(ctx, {
      slug: 'lab-slow-disk',
      title: 'a log dir\'s disk slowed to 20 writes a second (blkio throttle)',
      brokers: 3,
      topic: { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2', 'flush.messages': '1' } },
      producer: { acks: 'all', recordsPerSec: 500, recordBytes: 1_024 },
      warmupMs: 12_000,
      prepare: (workDir, dataDirOf) => {
        volume = mountIoErrorVolume(dataDirOf(BROKER), join(workDir, 'volume.img'), VOLUME_MB, { shutdown: false })
        return () => volume?.unmount()
      },
      pickTarget: () => BROKER,
      async inject() {
        return throttleDevice(volume!.device, { writeIops: WRITE_IOPS, writeBps: WRITE_BPS })
      },
      async aftermath() {
        await pause(SLOW_MS)
      },
      measure(env) {
        const peers = env.cluster.brokers.filter((b) => b.id !== BROKER)
        return {
          'volume': `${VOLUME_MB} MiB ext4 on ${volume!.device}`,
          'throttle (root blkio cgroup)': `write_iops_device ${WRITE_IOPS}, write_bps_device ${WRITE_BPS}`,
          'slowed for (s)': SLOW_MS / 1000,
          '"Shrinking ISR" lines (other brokers)': peers.reduce((n, b) => n + countLines(b.serverLog, /Shrinking ISR/), 0),
          '"Shrinking ISR" lines (slowed broker)': countLines(env.target.serverLog, /Shrinking ISR/),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: (env) =>
        `broker ${BROKER}'s log dir was an ext4 file system on a loop device (${volume?.device}, a ${VOLUME_MB} MiB image file), mounted over it before the broker started, and topic \`orders\` flushed every message (\`flush.messages=1\`). Every write to that device was then throttled in the root blkio cgroup (\`blkio.throttle.write_iops_device\` ${WRITE_IOPS}, \`blkio.throttle.write_bps_device\` ${WRITE_BPS}), so the broker's fsyncs, the kernel's writeback and the ext4 journal all waited, for ${SLOW_MS / 1000} s until the files were copied. Broker ${env.target.id} was otherwise untouched.`,
      expect: { topRule: 'produce_latency_high.local', absentRules: ['disk_full', 'log_dir_failure'] },
    })
  },
}
