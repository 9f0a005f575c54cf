/**
 * Log pipeline throughput against `grep -cE` with the same trigger patterns over the same file in the
 * same run. Builds a realistic server.log from real lines (seed incidents and Kafka 2.8 wording) with
 * advancing timestamps in a temp dir, parses it with the replay reader, and deletes it afterwards.
 *
 *   npx tsx bench/logs.ts [--size-mb 1024]
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, openSync, rmSync, statSync, writeSync, closeSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { genericTriggersEre } from '../adapters/logs/generic.js'
import { matchersFor } from '../adapters/logs/matchers.js'
import { readLogFile } from '../adapters/logs/read-file.js'

const sizeArg = process.argv.indexOf('--size-mb')
const sizeMb = sizeArg >= 0 ? Number(process.argv[sizeArg + 1]) : 1024
if (!Number.isFinite(sizeMb) || sizeMb <= 0) {
  console.error('usage: npx tsx bench/logs.ts [--size-mb N]')
  process.exit(2)
}

// Noise a busy 2.x broker writes all day (Kafka 2.8 wording; seed 000's ZooKeeper client lines).
const NOISE = [
  'INFO [GroupMetadataManager brokerId=1] Removed 0 expired offsets in 0 milliseconds. (kafka.coordinator.group.GroupMetadataManager)',
  'INFO [ReplicaFetcherManager on broker 1] Removed fetcher for partitions Set(kf.p36.r4-3) (kafka.server.ReplicaFetcherManager)',
  'INFO ROVER: start of loop. (org.apache.zookeeper.ClientCnxn)',
  'INFO ROVER: state = CONNECTED (org.apache.zookeeper.ClientCnxn)',
  'INFO ROVER: to = 4000 (org.apache.zookeeper.ClientCnxn)',
  'INFO ROVER: timeToNextPing = 2000 (org.apache.zookeeper.ClientCnxn)',
  'INFO ROVER: before clientCnxnSocket.doTransport, to = 2000 (org.apache.zookeeper.ClientCnxn)',
  'INFO ROVER: after clientCnxnSocket.doTransport (org.apache.zookeeper.ClientCnxn)',
]
// Lines that yield signals (seed 000/002/003 lines and Kafka 2.8 segment roll), one of each per block.
const EVENTS = [
  'INFO [Log partition=kf.p36.r4-3, dir=/data/kafka] Rolled new log segment at offset 1234 in 1 ms. (kafka.log.Log)',
  'INFO [Partition gnup.source.offset.storage.topic-5 broker=1001] Shrinking ISR from 1001,1002 to 1001 (kafka.cluster.Partition)',
  'WARN Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062 (org.apache.zookeeper.ClientCnxn)',
  'INFO [GroupCoordinator 1001]: Stabilized group connect-VOICE_1_SINK_CONN generation 26 (__consumer_offsets-18) (kafka.coordinator.group.GroupCoordinator)',
]
// seed 001's error record, once per 10 blocks.
const RECORD = [
  'ERROR Error while appending records to LoadTestingTopic in dir /broder/log (org.apache.kafka.storage.internals.log.LogDirFailureChannel)',
  'java.io.IOException: Map failed ',
  'at java.base/sun.nio.ch.FileChannelImpl.map(FileChannelImpl.java:1016) ',
  'at kafka.log.LogSegment.append(LogSegment.scala:157) ',
  'Caused by: java.lang.OutOfMemoryError: Map failed ',
]

const pad = (n: number, w = 2) => String(n).padStart(w, '0')
function stamp(ms: number): string {
  const d = new Date(ms)
  return `[${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())},${pad(d.getUTCMilliseconds(), 3)}]`
}

function build(file: string, bytes: number): { lines: number; bytes: number } {
  const fd = openSync(file, 'w')
  let t = Date.parse('2018-08-06T00:00:00Z')
  let written = 0
  let lines = 0
  let block = 0
  try {
    while (written < bytes) {
      const parts: string[] = []
      for (let b = 0; b < 200; b++, block++) {
        for (let i = 0; i < 196; i++) {
          t += 3
          parts.push(`${stamp(t)} ${NOISE[i % NOISE.length]}`)
        }
        for (const e of EVENTS) parts.push(`${stamp((t += 3))} ${e}`)
        if (block % 10 === 0) parts.push(`${stamp((t += 3))} ${RECORD[0]}`, ...RECORD.slice(1))
      }
      const chunk = parts.join('\n') + '\n'
      lines += parts.length
      written += writeSync(fd, chunk)
    }
  } finally {
    closeSync(fd)
  }
  return { lines, bytes: written }
}

/** Sums the children's user and system time from the second line of bash's `times` ("0m1.234s 0m0.010s"). */
function cpuOfTimes(line: string): number {
  return [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0)
}

/**
 * The triggers of the kafka matcher set as POSIX ERE, plus the generic error triggers (level words,
 * exception and banner literals), so grep searches for exactly what the parser prefilters on.
 */
function erePattern(): string {
  return `${matchersFor('kafka').trigger.source.replace(/\(\?:/g, '(').replace(/\\d/g, '[0-9]')}|${genericTriggersEre()}`
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-bench-logs-'))
  try {
    const file = path.join(dir, 'server.log')
    const g0 = performance.now()
    const built = build(file, sizeMb * 1024 * 1024)
    const mb = statSync(file).size / (1024 * 1024)
    console.log(`built ${file}: ${mb.toFixed(0)} MiB, ${built.lines} lines in ${((performance.now() - g0) / 1000).toFixed(1)} s`)

    const pattern = erePattern()
    // bash's `times` reports the CPU the grep child used; wall time alone is noise on a shared machine.
    const gr0 = performance.now()
    const grep = spawnSync('bash', ['-c', 'grep -cE "$0" "$1"; times', pattern, file], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } })
    const grepWall = (performance.now() - gr0) / 1000
    const out = grep.stdout.trim().split('\n')
    const grepCount = Number(out[0])
    if (!Number.isFinite(grepCount)) throw new Error(`grep failed: ${grep.stderr}`)
    const grepCpu = cpuOfTimes(out[out.length - 1])

    const c0 = process.cpuUsage()
    const p0 = performance.now()
    const reader = readLogFile({ path: 'server.log', cluster: 'bench', broker: '1' }, file)
    let signals = 0
    for await (const batch of reader.batches) signals += batch.length
    const ourWall = (performance.now() - p0) / 1000
    const cu = process.cpuUsage(c0)
    const ourCpu = (cu.user + cu.system) / 1e6

    const row = (name: string, wall: number, cpu: number) =>
      `${name.padEnd(24)} wall ${wall.toFixed(2).padStart(6)} s ${(built.lines / wall / 1e6).toFixed(2).padStart(6)} M lines/s ${(mb / wall).toFixed(0).padStart(5)} MiB/s | cpu ${cpu.toFixed(2).padStart(6)} s ${(built.lines / cpu / 1e6).toFixed(2).padStart(6)} M lines/s ${(mb / cpu).toFixed(0).padStart(5)} MiB/s`
    console.log(row('grep -cE (LC_ALL=C)', grepWall, grepCpu) + `   ${grepCount} matching lines`)
    console.log(row('kafka-why log pipeline', ourWall, ourCpu) + `   ${signals} signals from ${reader.stats.records} records`)
    console.log(`ratio pipeline/grep throughput: wall ${((grepWall / ourWall) * 100).toFixed(1)}%, cpu ${((grepCpu / ourCpu) * 100).toFixed(1)}%   (target >= 25%)`)
    console.log(`unparsed: ${JSON.stringify(reader.stats.unparsed)}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
