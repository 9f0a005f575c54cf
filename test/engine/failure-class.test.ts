import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { emptySourceStats, readSignalSources } from '../../adapters/incident.js'
import { unescapeField } from '../../adapters/logs/wording/lookup.js'
import { BASELINE_MAX_SCORE, messageOf } from '../../engine/baseline.js'
import { diagnose, SEVERITY_WEIGHT } from '../../engine/diagnose.js'
import { classifyFailure, FAILURE_CLASS_IDS, FAILURE_CLASSES, statedCause } from '../../engine/failure-class.js'
import { TEMPLATE_OVERRIDES } from '../../engine/failure-overrides.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { loadRules } from '../../rule-files/load-rules.js'

const WORDING_DIR = 'adapters/logs/wording'

type Row = { table: string; id: string; level: string; logger: string; template: string; signals: string[] }

/**
 * Every row of every wording table in the folder, whatever its column order: the header line names the
 * columns (`# id level logger …` for Kafka and ZooKeeper, `# id level component …` for the clients), so
 * a table added later is read without a change here.
 */
function wordingRows(): Row[] {
  const out: Row[] = []
  for (const table of readdirSync(WORDING_DIR).filter((f) => f.endsWith('.tsv')).sort()) {
    const lines = readFileSync(path.join(WORDING_DIR, table), 'utf8').split('\n')
    const columns = lines[0].replace(/^#\s*/, '').split('\t')
    const col = (name: string) => columns.indexOf(name)
    const [id, level, logger, template, signal] = [col('id'), col('level'), Math.max(col('logger'), col('component')), col('template'), col('signal')]
    expect([id, level, logger, template].every((i) => i >= 0), `${table}: header names id, level, logger or component, template`).toBe(true)
    for (const line of lines.slice(1)) {
      if (!line || line.startsWith('#')) continue
      const f = line.split('\t')
      out.push({ table, id: f[id], level: f[level], logger: f[logger], template: unescapeField(f[template]), signals: signal >= 0 && f[signal] !== '-' ? f[signal].split(',') : [] })
    }
  }
  return out
}

/** Rows a failure class must cover: every level but INFO (sarama's one-level `LOG` included). */
const failureRows = () => wordingRows().filter((r) => r.level !== 'INFO')

describe('engine/failure-class', () => {
  it('classifies every WARN/ERROR/FATAL template of every wording table (100 % by table)', () => {
    const rows = failureRows()
    const byTable = new Map<string, { n: number; benign: number; classes: Map<string, number>; by: Map<string, number> }>()
    const unclassified: string[] = []
    for (const r of rows) {
      const t = byTable.get(r.table) ?? { n: 0, benign: 0, classes: new Map(), by: new Map() }
      byTable.set(r.table, t)
      t.n++
      const k = classifyFailure({ id: r.id, level: r.level, logger: r.logger, message: r.template, signals: r.signals })
      if (!k) {
        unclassified.push(`${r.table} ${r.id} ${r.level} ${r.logger}: ${r.template.slice(0, 120)}`)
        continue
      }
      t.by.set(k.by, (t.by.get(k.by) ?? 0) + 1)
      if (k.benign !== undefined) t.benign++
      else t.classes.set(k.failureClass, (t.classes.get(k.failureClass) ?? 0) + 1)
    }
    const report = [...byTable].map(([table, t]) => {
      const classified = t.n - unclassified.filter((u) => u.startsWith(`${table} `)).length
      const by = [...t.by].map(([k, v]) => `${k} ${v}`).join(', ')
      return `${table}: ${classified}/${t.n} (${((100 * classified) / t.n).toFixed(1)} %) — benign ${t.benign}; by ${by}`
    })
    console.log(`failure-class coverage of WARN/ERROR/FATAL templates:\n  ${report.join('\n  ')}`)
    expect(rows.length).toBeGreaterThan(2000)
    expect(unclassified).toEqual([])
  })

  it('gives every benign mark a reason and every class a meaning and a next step', () => {
    for (const r of failureRows()) {
      const k = classifyFailure({ id: r.id, level: r.level, logger: r.logger, message: r.template, signals: r.signals })
      if (k?.benign !== undefined) expect(k.benign.length, `${r.id} benign reason`).toBeGreaterThan(20)
    }
    for (const c of FAILURE_CLASS_IDS) {
      expect(FAILURE_CLASSES[c].meaning.length).toBeGreaterThan(40)
      expect(FAILURE_CLASSES[c].next.length).toBeGreaterThan(40)
    }
    const doc = readFileSync('docs/failure-classes.md', 'utf8')
    for (const c of FAILURE_CLASS_IDS) expect(doc, `docs/failure-classes.md lists ${c}`).toContain(`\`${c}\``)
  })

  it('keeps no override for a template the tables no longer have', () => {
    const ids = new Set(failureRows().map((r) => r.id))
    expect(Object.keys(TEMPLATE_OVERRIDES).filter((id) => !ids.has(id))).toEqual([])
  })

  // Real lines: test/corpus cases' server.log files and the lab's recordings (quoted verbatim).
  it.each([
    ['cluster-id-mismatch-bitnami-external-zk', 'kafka.common.InconsistentClusterIdException: The Cluster ID mtrImbVDTm-jUIEpt8-jZQ doesn\'t match stored clusterId Some(OivcewOYSn2m-mUMUMMJUw) in meta.properties. The broker is trying to join the wrong cluster. Configured zookeeper.connect may be wrong.', 'configuration'],
    ['disk-full-startup-checkpoint-strimzi', 'Caused by: java.io.IOException: No space left on device', 'storage'],
    ['listener-duplicate-name-kafdrop', 'java.lang.IllegalArgumentException: requirement failed: Each listener must have a different name, listeners: EXTERNAL://xxx:9092,EXTERNAL://xxx:29092', 'configuration'],
  ])('reads a live line by its exception (%s)', (_case, line, cls) => {
    const exception = /([\w.$]+(?:Exception|Error))/.exec(line)![1]
    const k = classifyFailure({ message: 'Exiting Kafka due to fatal exception', logger: 'kafka.Kafka$', level: 'ERROR', rootCause: line.replace(/^Caused by: /, ''), exception })
    expect(k).toMatchObject({ failureClass: cls, by: 'exception' })
    expect(statedCause({ message: 'Exiting Kafka due to fatal exception', rootCause: line.replace(/^Caused by: /, '') })).toBe(line.replace(/^Caused by: /, ''))
  })

  // Client lines verbatim from the public reports named on each row (as in test/adapters/logs/client-matchers.test.ts);
  // the logger is what the client's layout names: librdkafka's facility, kafkajs's namespace, the Java class.
  it.each([
    ['getsentry/self-hosted#633', 'FAIL', 'kafka:9092/bootstrap: Connect to ipv4#172.19.0.10:9092 failed: Connection refused', 'network', true],
    ['confluentinc/librdkafka#2758', 'ERROR', 'ssl://localhost:9092/bootstrap: SSL handshake failed: ssl\\statem\\statem_clnt.c:1915: error:1416F086:SSL routines:tls_process_server_certificate:certificate verify failed:  (after 6ms in state CONNECT)', 'security', true],
    ['SahilKang/cl-rdkafka#57', 'MAXPOLL', 'Application maximum poll interval (300000ms) exceeded by 226ms (adjust max.poll.interval.ms for long-running message processing): leaving group', 'group', true],
    ['IBM/sarama#2215', 'client/metadata', 'client/metadata got error from broker 2 while fetching metadata: write tcp 172.31.32.204:60914->2.48.2.252:9093: write: broken pipe', 'client_request', false],
    ['tomasAlabes/graphql-kafkajs-subscriptions#13', 'Connection', '[Connection] Connection error: connect ECONNREFUSED 127.0.0.1:9092', 'network', false],
    ['shotover/shotover-proxy#1687', 'org.apache.kafka.clients.consumer.internals.ConsumerCoordinator', '[Consumer clientId=consumer-my-group-1, groupId=my-group] Offset commit failed on partition test-2 at offset 0: This is not the correct coordinator.', 'group', false],
  ])('reads a client line by its component (%s)', (_source, logger, message, cls, stated) => {
    expect(classifyFailure({ level: 'ERROR', logger, message })?.failureClass).toBe(cls)
    expect(statedCause({ message }) !== undefined).toBe(stated)
  })

  it('quotes only what states a reason: a bare failure or a generic I/O error does not', () => {
    expect(statedCause({ message: 'Exiting Kafka due to fatal exception' })).toBeUndefined()
    // lab-rolling-restart, kafka.controller.RequestSendThread's root cause
    expect(statedCause({ message: "[Controller id=1, targetBrokerId=1] Connection to node 1 (/127.0.0.1:35049) could not be established. Node may not be available.", rootCause: 'java.io.IOException: Connection to 127.0.0.1:35049 (id: 1 rack: null) failed.' })).toBeUndefined()
    // test/corpus/fetcher-truncation-not-allowed-crashloop
    expect(statedCause({ message: "[ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] Exiting because log truncation is not allowed for partition test-produce-consume-0, current leader's latest offset 2051 is less than replica's latest offset 2391" })).toMatch(/^\[ReplicaFetcher .*because log truncation is not allowed/)
  })

  it('takes the message out of a raw log4j line, keeping its log context', () => {
    expect(messageOf('[2020-11-07 13:18:42,019] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)')).toBe('Exiting Kafka due to fatal exception')
    // Ruby's Logger (zendesk/ruby-kafka#941): the program-name field before the message is not the message.
    expect(messageOf('E, [2022-05-18T04:25:31.804583 #67039] ERROR -- : [[test] {}:] [join_group] Timed out while waiting for response 2')).toBe('[[test] {}:] [join_group] Timed out while waiting for response 2')
    // test/corpus/fetcher-truncation-not-allowed-crashloop
    expect(messageOf("[2024-01-16 10:09:57,590] FATAL [ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] Exiting because log truncation is not allowed for partition test-produce-consume-0, current leader's latest offset 2051 is less than replica's latest offset 2391 (kafka.server.ReplicaFetcherThread)")).toMatch(/^\[ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0\] Exiting because .* 2391$/)
  })
})

async function diagnoseCase(dir: string, broker: string, rulePaths: string[]) {
  const { rules } = rulePaths.length ? await loadRules(rulePaths) : { rules: [] }
  const store = new MemoryStore()
  let from = Infinity
  let to = -Infinity
  for await (const batch of readSignalSources([dir], { stats: emptySourceStats() })) {
    await store.append(batch)
    for (const s of batch) if (Number.isFinite(s.at)) [from, to] = [Math.min(from, s.at), Math.max(to, s.at)]
  }
  const d = await diagnose(rules, store, { cluster: 'corpus', broker, from, to, now: to, record: false })
  await store.close()
  return d
}

describe('engine/baseline', () => {
  it('answers a self-explaining failure with its own words when no rule matches, and ranks below the rule when one does', async () => {
    const dir = 'test/corpus/cluster-id-mismatch-bitnami-external-zk'
    const bare = await diagnoseCase(dir, '0', [])
    expect(bare.causes[0]).toMatchObject({ ruleId: 'baseline.configuration', confidence: 'baseline', severity: 'warning' })
    expect(bare.causes[0].cause).toContain("The Cluster ID mtrImbVDTm-jUIEpt8-jZQ doesn't match stored clusterId")
    expect(bare.causes[0].baseline?.statedCause).toMatch(/^kafka\.common\.InconsistentClusterIdException: /)
    expect(bare.causes[0].advise).toMatch(/^Next: .*meta\.properties/)
    expect(bare.causes[0].evidence.length).toBeGreaterThan(0)
    expect(bare.unexplained?.length).toBeGreaterThan(0)
    const full = await diagnoseCase(dir, '0', ['rules/'])
    expect(full.causes[0].ruleId).toBe('inconsistent_cluster_id')
    const rules = full.causes.filter((c) => c.confidence !== 'baseline')
    const baselines = full.causes.filter((c) => c.confidence === 'baseline')
    for (const b of baselines) for (const r of rules) expect(b.score).toBeLessThan(r.score)
    expect(BASELINE_MAX_SCORE).toBeLessThan(SEVERITY_WEIGHT.info)
  })

  it('reads a WARN statement that reports a failure as an info baseline when nothing else failed (cp-helm-charts#487)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kafka-why-warn-baseline-'))
    try {
      // Verbatim ZooKeeper server lines of confluentinc/cp-helm-charts#487 (turn 2).
      writeFileSync(
        path.join(dir, 'zookeeper.log'),
        '[2021-04-02 01:34:59,601] WARN Exception causing close of session 0x0: ZooKeeperServer not running (org.apache.zookeeper.server.NIOServerCnxn)\n' +
          '[2021-04-02 01:35:06,918] WARN Exception causing close of session 0x0: ZooKeeperServer not running (org.apache.zookeeper.server.NIOServerCnxn)\n',
      )
      writeFileSync(path.join(dir, 'incident.yaml'), 'cluster: corpus\nsources:\n  - { path: zookeeper.log, broker: "zk" }\n')
      const d = await diagnoseCase(dir, 'zk', [])
      expect(d.causes[0]).toMatchObject({ ruleId: 'baseline.coordination', confidence: 'baseline', severity: 'info' })
      expect(d.causes[0].cause).toContain('ZooKeeperServer not running')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('explains a disk that filled up at class level, quoting the errno text', async () => {
    const d = await diagnoseCase('test/corpus/disk-full-startup-checkpoint-strimzi', readCaseBroker('test/corpus/disk-full-startup-checkpoint-strimzi'), [])
    const storage = d.causes.find((c) => c.ruleId === 'baseline.storage')
    expect(storage?.baseline?.statedCause).toMatch(/No space left on device/)
    expect(d.causes[0].score).toBeLessThanOrEqual(BASELINE_MAX_SCORE)
  })

  // With no rule at all, what the corpus excerpts get: the right class, their own words when they state them.
  it.each([
    ['listener-no-security-protocol-ssl', 'configuration', /No security protocol defined for listener SSL/],
    ['log-dir-failed-permissions-cp-kafka', 'log_dir', /all log dirs in \/var\/lib\/kafka\/data have failed/],
    ['heap-oom-startup-log-cleaner-buffer', 'memory', /OutOfMemoryError: Java heap space/],
    ['cert-expiry-zookeeper-pkix-validity', 'security', undefined],
    ['fetcher-truncation-not-allowed-crashloop', 'replication', /because log truncation is not allowed/],
    ['mmap-map-failed-topic-churn-0-10', 'memory', /Map failed/],
    ['restart-nodeexists-persisted-zk-data', 'coordination', /NodeExists/],
  ])('with an empty rule pack, %s is a %s baseline', async (c, cls, words) => {
    const dir = `test/corpus/${c}`
    const d = await diagnoseCase(dir, readCaseBroker(dir), [])
    expect(d.causes[0]).toMatchObject({ ruleId: `baseline.${cls}`, confidence: 'baseline' })
    if (words) expect(d.causes[0].baseline?.statedCause).toMatch(words)
    else expect(d.causes[0].baseline?.statedCause).toBeUndefined()
  })

  // Healthy recordings and excerpts: no baseline (nor rule) at warning or above, with the pack and without.
  const healthy = [
    ...readdirSync('test/corpus').filter((d) => d.startsWith('healthy-')).map((d) => `test/corpus/${d}`),
    'test/incidents/healthy-day',
    'test/incidents/planned-rolling-restart',
  ]
  it.each(healthy)('stays quiet at warning and above on %s', async (dir) => {
    const brokers = dir.startsWith('test/corpus/') ? [readCaseBroker(dir)] : brokersOf(dir)
    for (const broker of brokers) {
      for (const rulePaths of [[], ['rules/']]) {
        const d = await diagnoseCase(dir, broker, rulePaths)
        expect(d.causes.filter((c) => c.confidence === 'baseline' && c.severity !== 'info').map((c) => `${broker}: ${c.ruleId} ${c.cause}`)).toEqual([])
      }
    }
  })
})

function readCaseBroker(dir: string): string {
  return /broker:\s*"?([\w-]+)"?/.exec(readFileSync(path.join(dir, 'case.yaml'), 'utf8'))![1]
}

function brokersOf(dir: string): string[] {
  return [...readFileSync(path.join(dir, 'incident.yaml'), 'utf8').matchAll(/broker:\s*"?(\w+)"?/g)].map((m) => m[1]).filter((b, i, a) => a.indexOf(b) === i)
}
