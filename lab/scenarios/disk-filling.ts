import { join } from 'node:path'
import os from 'node:os'
import { diskSpaceSignals, readDiskSpace } from '../../adapters/agent/disk-space.js'
import type { Signal } from '../../signals/signal.js'
import { pause, runFaultScenario } from '../fault-scenario.js'
import { loopVolumeUnavailable, mountIoErrorVolume, type IoErrorVolume } from '../faults/volumes.js'
import { LAB_CLUSTER_NAME } from '../incident-recorder.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const BROKER = 1
const VOLUME_MB = 768
const RECORDS_PER_SEC = 600
const RECORD_BYTES = 1_024
const FILLING_MS = 690_000
const SAMPLE_MS = 5_000

/**
 * A disk filling at a steady rate: the broker's log dir is an ext4 of 768 MiB on a loop device and a
 * topic without any size limit takes a steady 600 KiB/s, so the file system will be full in about
 * twenty minutes. The host agent's disk reading (statfs of each dir, every 5 s) watches the log dir
 * and, for a disk that is not filling, the broker's home on the machine's own large file system. The
 * recording stops well before the volume is full: the diagnosis must name the date, not the crash.
 */
export const scenario: Scenario = {
  name: 'disk-filling',
  summary: `1 broker, its log dir on a ${VOLUME_MB} MiB ext4 (loop device) taking ${RECORDS_PER_SEC} × ${RECORD_BYTES} B/s for ${FILLING_MS / 1000} s; free space read by statfs every ${SAMPLE_MS / 1000} s`,
  needs: { seconds: FILLING_MS / 1000 + 40, memoryMb: 900, ports: 'ZooKeeper 1, broker 1, exporter 1 (dynamic, 127.0.0.1)' },
  requires: 'root, loop devices, ext4',
  unavailable: loopVolumeUnavailable,
  run: (ctx) => {
    let volume: IoErrorVolume | undefined
    let timer: NodeJS.Timeout | undefined
    const readings: Signal[] = []
    const host = os.hostname()
    const stopSampling = () => {
      if (timer) clearInterval(timer)
      timer = undefined
    }
    return runFaultScenario(ctx, {
      slug: 'lab-disk-filling',
      title: 'a log dir\'s disk filling at a steady rate, recorded well before it is full',
      brokers: 1,
      topic: { name: 'orders', partitions: 6, replicationFactor: 1, configs: { 'retention.ms': '-1', 'retention.bytes': '-1' } },
      producer: { acks: '1', recordsPerSec: RECORDS_PER_SEC, recordBytes: RECORD_BYTES },
      warmupMs: 5_000,
      prepare: (workDir, dataDirOf) => {
        volume = mountIoErrorVolume(dataDirOf(BROKER), join(workDir, 'volume.img'), VOLUME_MB, { shutdown: false })
        const dirs = [dataDirOf(BROKER), join(workDir, `broker-${BROKER}`)]
        const sample = async () => {
          const at = Date.now()
          const { readings: r } = await readDiskSpace(dirs)
          for (const s of diskSpaceSignals(r, at, { cluster: LAB_CLUSTER_NAME, broker: String(BROKER), host })) readings.push(s)
        }
        void sample()
        timer = setInterval(() => void sample(), SAMPLE_MS)
        return () => {
          stopSampling()
          volume?.unmount()
        }
      },
      pickTarget: () => BROKER,
      async inject() {
        // The fault is the load itself on a disk with no room for it; nothing more is done.
      },
      async aftermath() {
        await pause(FILLING_MS)
        stopSampling()
      },
      extraSignals: () => readings,
      measure(env) {
        const mine = readings.filter((s) => s.name === 'disk.avail' && s.labels?.path === env.target.dataDir)
        const first = mine[0]
        const last = mine.at(-1)
        const mib = (b: number | undefined) => (b === undefined ? 'none' : (b / 1024 / 1024).toFixed(1))
        const rate = first && last && last.at > first.at ? ((first.value! - last.value!) / 1024 / ((last.at - first.at) / 1000)).toFixed(0) : 'none'
        return {
          'volume': `${VOLUME_MB} MiB ext4 on ${volume?.device}`,
          'offered load (records/s × B)': `${RECORDS_PER_SEC} × ${RECORD_BYTES}`,
          'log dir free at the first reading (MiB)': mib(first?.value),
          'log dir free at the last reading (MiB)': mib(last?.value),
          'mean fill rate (KiB/s)': rate,
          'disk readings (statfs, both dirs)': readings.length / 2,
          '"No space left" lines': countLines(env.target.serverLog, /No space left on device/),
        }
      },
      whatWasDone: (env) =>
        `Broker ${env.target.id}'s log dir was an ext4 file system on a loop device (${volume?.device}, a ${VOLUME_MB} MiB image file), mounted over it before the broker started. Topic \`orders\` (no retention limit: \`retention.ms=-1\`, \`retention.bytes=-1\`) took ${RECORDS_PER_SEC} records/s of ${RECORD_BYTES} B for ${FILLING_MS / 1000} s. The free space of the log dir's file system and of the broker's home directory (the machine's own file system) was read with statfs every ${SAMPLE_MS / 1000} s by the host agent's disk reading (\`adapters/agent/disk-space.ts\`, \`disk.avail\` and \`disk.size\` labelled with the path) from before the broker started. The files were copied long before the volume was full.`,
      expect: { topRule: 'disk_filling', absentRules: ['disk_full', 'log_dir_failure', 'offline_log_directories'] },
    })
  },
}
