import { existsSync, readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { scrapeExporter, startCluster, type LabCluster, type LabMode } from '../../lab/cluster.js'
import { labUnavailableReason } from '../../lab/kafka-runtime.js'
import { portAnswers } from '../../lab/wait-for.js'

const unavailable = labUnavailableReason()
if (unavailable) console.warn(`test/lab/cluster: skipped, the lab needs Java and Maven: ${unavailable}`)

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Kafka's log4j layout: [yyyy-MM-dd HH:mm:ss,SSS] LEVEL message (logger) */
const KAFKA_LAYOUT = /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (INFO|WARN|ERROR|DEBUG|TRACE) .+ \([\w.$]+\)$/m
/** JDK 17 unified logging, time/uptime/level/tags decorations, the safepoint tag. */
const SAFEPOINT_LINE = /^\[\d{4}-\d\d-\d\dT[\d:.]+[+-]\d{4}\]\[[\d.]+s\]\[info\]\[safepoint\s*\] Safepoint ".+", Time since last: \d+ ns, Reaching safepoint: \d+ ns/m

describe.skipIf(unavailable !== undefined)('lab/cluster', () => {
  const running: LabCluster[] = []
  afterAll(async () => {
    for (const c of running) await c.stop({ graceMs: 2_000 })
  })

  it.each<[LabMode, RegExp]>([
    ['zk', /\[KafkaServer id=1\] started \(kafka\.server\.KafkaServer\)/],
    ['kraft', /\[KafkaRaftServer nodeId=1\] Kafka Server started \(kafka\.server\.KafkaRaftServer\)/],
  ])('starts a real 1-broker %s cluster on loopback and stops it without leftovers', async (mode, startedLine) => {
    const cluster = await startCluster({ mode, brokers: 1 })
    running.push(cluster)
    const [broker] = cluster.brokers
    expect(cluster.bootstrap).toBe(`127.0.0.1:${broker.port}`)
    expect(await portAnswers(broker.port)).toBe(true)
    if (mode === 'zk') {
      expect(cluster.zkConnect).toMatch(/^127\.0\.0\.1:\d+$/)
      expect(await portAnswers(cluster.zookeeper!.port)).toBe(true)
    } else {
      expect(cluster.zkConnect).toBeUndefined()
    }

    const server = readFileSync(broker.serverLog, 'utf8')
    expect(server).toMatch(KAFKA_LAYOUT)
    expect(server).toMatch(startedLine)
    expect(server).toMatch(/Kafka version: 3\.9\.\d+ \(org\.apache\.kafka\.common\.utils\.AppInfoParser\)/)
    expect(readFileSync(broker.gcLog, 'utf8')).toMatch(SAFEPOINT_LINE)
    if (mode === 'zk') expect(readFileSync(`${broker.logDir}/controller.log`, 'utf8')).toMatch(KAFKA_LAYOUT)

    const scrape = await scrapeExporter(broker.exporterPort!)
    expect(scrape).toMatch(/^jvm_memory_used_bytes\{area="heap"\} \d/m)
    expect(scrape).toMatch(/^process_open_fds \d+/m)
    expect(scrape).toMatch(/^kafka_server_replicamanager_partitioncount \d/m)

    const pids = [broker.pid, ...(cluster.zookeeper ? [cluster.zookeeper.pid] : [])]
    await cluster.stop()
    for (const pid of pids) expect(processExists(pid)).toBe(false)
    expect(await portAnswers(broker.port)).toBe(false)
    expect(existsSync(cluster.dir)).toBe(false)
  })

  it('stops ZooKeeper and reports the reason when a broker cannot start', async () => {
    await expect(startCluster({ brokers: 1, exporter: false, brokerConfig: { 'num.io.threads': 'many' } })).rejects.toThrow(
      /broker 1: exited/,
    )
    await new Promise((r) => setTimeout(r, 200))
    const { execFileSync } = await import('node:child_process')
    const left = execFileSync('ps', ['-eo', 'pid,ppid,args'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(String(process.pid)) && /QuorumPeerMain|kafka\.Kafka/.test(l))
    expect(left).toEqual([])
  })
})
