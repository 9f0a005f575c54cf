import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSignalSources } from '../../adapters/incident.js'
import { escapeGithubData, escapeGithubProperty } from '../../cli/annotations/github.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import { startLabRedisCluster } from '../../lab/redis-cluster.js'
import { kafkaWhy } from '../support/kafka-why-cli.js'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'
import { deletePrefixes, TEST_REDIS_URL } from '../support/redis-prefix.js'

/**
 * `kafka-why ci` on a real git repository: a base commit with two rules and a rule test, and a head
 * commit that changes a threshold, raises a severity, adds a rule, adds a broken rule file and a test
 * case that fails. The backtest runs over the lab-stw incident (copied into the repository); what it
 * must find is worked out here from the incident's raw log lines, not from the engine. The first ci run,
 * one lint and one test run go through the kafka-why entry point in a process of their own (exit codes
 * as CI sees them); the others run the same command line in-process, sparing each the 2.5 s of CPU a
 * process spends loading its modules.
 */

const INCIDENT = path.resolve('test/incidents/lab-stw')
const SARIF_SCHEMA = JSON.parse(readFileSync('test/fixtures/sarif/sarif-schema-2.1.0.json', 'utf8'))

const BASE_RULES = `# A safepoint that takes seconds to reach stops every thread of the broker.
rule long_safepoint_sync
  severity warning
  when safepoint.sync > 2s
  then cause "bringing threads to a safepoint took {safepoint.sync} on broker {broker}"

rule long_gc_pause
  severity warning
  when gc.pause > 50ms
  then cause "GC pause of {gc.pause} on broker {broker}"
`
const HEAD_RULES = `# A safepoint that takes seconds to reach stops every thread of the broker.
rule long_safepoint_sync
  severity warning
  when safepoint.sync > 20ms
  then cause "bringing threads to a safepoint took {safepoint.sync} on broker {broker}"

rule long_gc_pause
  severity critical
  when gc.pause > 50ms
  then cause "GC pause of {gc.pause} on broker {broker}"

rule zk_session_timeout_seen
  severity critical
  when zk.session_timeout
  then cause "the ZooKeeper client of broker {broker} timed out its session ({zk.session_timeout})"
`
const BROKEN_RULES = `rule slow_safepoint_total
  when safepoint.synch > 2s
  then cause "safepoint total {safepoint.synch}"
`
const BASE_TESTS = `tests:
  - name: lab-stw safepoint stall
    incident: ../../incidents/lab-stw
    expect:
      - rule: long_safepoint_sync
        broker: "1"
`
const FAILING_CASE = `  - name: lab-stw session timeout
    incident: ../../incidents/lab-stw
    expect:
      - rule: zk_session_timeout_seen
        broker: "2"
`

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } })
}

function write(dir: string, file: string, text: string): void {
  writeFileSync(path.join(dir, file), text)
}

/** Brokers of the incident with a line the regex matches and whose captured value passes `keep`. */
function brokersWith(file: string, re: RegExp, keep: (v: number) => boolean = () => true): string[] {
  return readdirSync(INCIDENT)
    .filter((d) => d.startsWith('broker-'))
    .filter((d) => readFileSync(path.join(INCIDENT, d, file), 'utf8').split('\n').some((l) => {
      const m = re.exec(l)
      return m !== null && keep(Number(m[1] ?? 0))
    }))
    .map((d) => d.slice('broker-'.length))
    .sort()
}

/** 1-based line and column of `needle` in `text`. */
function positionOf(text: string, needle: string): { line: number; col: number } {
  const at = text.indexOf(needle)
  const before = text.slice(0, at).split('\n')
  return { line: before.length, col: before[before.length - 1].length + 1 }
}

/** Cells of the Markdown table row whose first cell is `` `rule` ``. */
function tableRow(markdown: string, rule: string): string[] {
  const line = markdown.split('\n').find((l) => l.startsWith(`| \`${rule}\` |`) && /\|\s*\d+\s*\|$/.test(l))
  expect(line, `backtest row for ${rule}`).toBeDefined()
  return line!.split('|').slice(2, -1).map((c) => c.trim())
}

/** Checks the backtest table against what the incident's own lines say each rule version fires on. */
function expectBacktestTable(md: string): void {
  const syncOver = (ms: number) => brokersWith('gc.log', /Reaching safepoint: (\d+) ns/, (ns) => ns > ms * 1e6)
  const pauseOver50 = brokersWith('gc.log', /\] GC\(\d+\) Pause .* ([\d.]+)ms$/, (ms) => ms > 50)
  const timedOut = brokersWith('server.log', /Client session timed out/)
  expect(syncOver(2000).length).toBeGreaterThan(0)
  expect(syncOver(20).length).toBeGreaterThan(syncOver(2000).length)
  expect(tableRow(md, 'long_safepoint_sync').map(Number)).toEqual([syncOver(2000).length, syncOver(20).length, syncOver(20).length - syncOver(2000).length, 0, 0])
  expect(tableRow(md, 'long_gc_pause').map(Number)).toEqual([pauseOver50.length, pauseOver50.length, 0, 0, pauseOver50.length])
  expect(tableRow(md, 'zk_session_timeout_seen').map(Number)).toEqual([0, timedOut.length, timedOut.length, 0, 0])
  // Example evidence: the broker's own log line that newly fires.
  const zkLine = readFileSync(path.join(INCIDENT, `broker-${timedOut[0]}`, 'server.log'), 'utf8').split('\n').find((l) => l.includes('Client session timed out'))!
  expect(md).toContain(zkLine.slice(zkLine.indexOf('Client session timed out')))
  expect(md).toMatch(/signals read in \d+ windows?, took [\d.]+ (ms|s|min)\./)
}

function validatorForSarif() {
  const ajv = new Ajv2020({ allErrors: true, strict: false })
  ajv.addFormat('uri', (s: string) => URL.canParse(s))
  ajv.addFormat('uri-reference', (s: string) => URL.canParse(s, 'file:///'))
  ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)))
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)
  return ajv.compile(SARIF_SCHEMA)
}

let repo: string
let clean: string

beforeAll(() => {
  repo = mkdtempSync(path.join(tmpdir(), 'kafka-why-ci-'))
  git(repo, 'init', '-q', '-b', 'main')
  cpSync(INCIDENT, path.join(repo, 'incidents/lab-stw'), { recursive: true })
  mkdirSync(path.join(repo, 'rules/tests'), { recursive: true })
  write(repo, 'rules/jvm.rules', BASE_RULES)
  write(repo, 'rules/tests/jvm.yaml', BASE_TESTS)
  git(repo, 'add', '-A')
  git(repo, 'commit', '-q', '-m', 'base')
  git(repo, 'checkout', '-q', '-b', 'change')
  write(repo, 'rules/jvm.rules', HEAD_RULES)
  write(repo, 'rules/broken.rules', BROKEN_RULES)
  write(repo, 'rules/tests/jvm.yaml', BASE_TESTS + FAILING_CASE)
  git(repo, 'add', '-A')
  git(repo, 'commit', '-q', '-m', 'head')
  // The same change without the broken file and the failing case, and with the rule file renamed.
  clean = mkdtempSync(path.join(tmpdir(), 'kafka-why-ci-clean-'))
  git(clean, 'clone', '-q', repo, '.')
  git(clean, 'checkout', '-q', '-b', 'clean', 'origin/change')
  git(clean, 'rm', '-q', 'rules/broken.rules')
  write(clean, 'rules/tests/jvm.yaml', BASE_TESTS)
  git(clean, 'mv', 'rules/jvm.rules', 'rules/pause.rules')
  git(clean, 'commit', '-q', '-a', '-m', 'clean head')
}, 60_000)

afterAll(() => {
  for (const dir of [repo, clean]) if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('test/cli/ci', () => {
  it('reports lint errors, the failing test and the backtest as a PR comment, exit 1', async () => {
    const r = await kafkaWhy(['ci', '--base', 'main', '--replay', 'incidents/lab-stw', '--format', 'markdown'], {}, repo)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    const md = r.stdout
    const unknown = positionOf(BROKEN_RULES, 'safepoint.synch')
    expect(md).toContain(`rules/broken.rules:${unknown.line}:${unknown.col} error DSL012 unknown signal 'safepoint.synch'`)
    const failing = positionOf(BASE_TESTS + FAILING_CASE, 'rule: zk_session_timeout_seen')
    expect(md).toContain(`rules/tests/jvm.yaml:${failing.line}:${failing.col}`)
    expect(md).toMatch(/\| tests \| \*\*1 failed\*\*, 1 passed/)
    expect(md).toContain('| `slow_safepoint_total` | new (not backtested: its new version has lint errors)')
    expectBacktestTable(md)
  }, 120_000)

  it('backtests over the team store (REDIS_URL, --since) the same way, reading it a window at a time', async () => {
    const prefix = `kafka-why-test:${randomUUID()}:`
    const store = new RedisStore({ url: TEST_REDIS_URL, prefix })
    try {
      await storeIncidentTwoHoursAgo(store)
      const r = await kafkaWhyInProcess(['ci', '--base', 'main', '--since', '1d', '--window', '30m', '--format', 'markdown'], { REDIS_URL: TEST_REDIS_URL, KAFKA_WHY_REDIS_PREFIX: prefix }, repo)
      expect(r.stderr).toBe('')
      expect(r.code).toBe(1)
      // 1 d in 30 min windows, but the history ends with the incident two hours ago: the four
      // windows after its last record are not read (no tick reaches past the data).
      expect(r.stdout).toMatch(/over the store \(REDIS_URL\), last 1d, .*: [\d,]+ signals read in 45 windows/)
      expectBacktestTable(r.stdout)
    } finally {
      await store.close()
      await deletePrefixes([prefix])
    }
  }, 180_000)

  it('backtests over a Redis Cluster store (REDIS_CLUSTER_NODES) with the same findings', async () => {
    const cluster = await startLabRedisCluster()
    const prefix = `kafka-why-test:${randomUUID()}:`
    const store = new RedisStore({ clusterNodes: cluster.nodesEnv, prefix })
    try {
      await storeIncidentTwoHoursAgo(store)
      const admin = new Cluster(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })))
      try {
        // The incident's brokers are spread over more than one shard, so the backtest reads across them.
        await admin.cluster('INFO')
        const shards = await Promise.all(admin.nodes('master').map(async (node) => (await node.keys(`${prefix}sig:*`)).length))
        expect(shards.filter((n) => n > 0).length).toBeGreaterThan(1)
      } finally {
        admin.disconnect()
      }
      const r = await kafkaWhyInProcess(['ci', '--base', 'main', '--since', '1d', '--window', '30m', '--format', 'markdown'], { REDIS_CLUSTER_NODES: cluster.nodesEnv, KAFKA_WHY_REDIS_PREFIX: prefix }, repo)
      expect(r.stderr).toBe('')
      expect(r.code).toBe(1)
      expect(r.stdout).toMatch(/over the store \(REDIS_CLUSTER_NODES\), last 1d, .*: [\d,]+ signals read in 45 windows/)
      expectBacktestTable(r.stdout)
    } finally {
      await store.close()
      await cluster.stop()
    }
  }, 180_000)

  it('follows a rename, passes a clean change (exit 0) and fails it only with --fail-on-new-critical', async () => {
    const plain = await kafkaWhyInProcess(['ci', '--base', 'origin/main', '--replay', 'incidents/lab-stw'], {}, clean)
    expect(plain.stderr).toBe('')
    expect(plain.code).toBe(0)
    expect(plain.stdout).toContain('rules/jvm.rules → rules/pause.rules')
    expect(plain.stdout).toMatch(/tests: 1 passed, 0 failed/)
    const strict = await kafkaWhyInProcess(['ci', '--base', 'origin/main', '--replay', 'incidents/lab-stw', '--fail-on-new-critical'], {}, clean)
    expect(strict.code).toBe(1)
    expect(strict.stderr).toMatch(/would raise \d+ critical alert/)
  }, 120_000)

  it('annotates lint findings as GitHub workflow commands on their file:line:col', async () => {
    const r = await kafkaWhy(['lint', '--format', 'github', 'rules'], {}, repo)
    expect(r.code).toBe(1)
    const unknown = positionOf(BROKEN_RULES, 'safepoint.synch')
    const lines = r.stdout.trim().split('\n')
    expect(lines.every((l) => l.startsWith('::error ') || l.startsWith('::warning ') || l.startsWith('::notice '))).toBe(true)
    expect(lines).toContain(
      `::error file=rules/broken.rules,line=${unknown.line},col=${unknown.col},endLine=${unknown.line},endColumn=${unknown.col + 'safepoint.synch'.length},title=kafka-why DSL012%3A unknown signal::unknown signal 'safepoint.synch'%0Ahint: did you mean 'safepoint.sync'?`,
    )
  }, 60_000)

  it('annotates a failed rule-test assertion where it is written', async () => {
    const r = await kafkaWhy(['test', '--format', 'github', 'rules/tests', '--rules', 'rules/jvm.rules'], {}, repo)
    expect(r.code).toBe(1)
    const failing = positionOf(BASE_TESTS + FAILING_CASE, 'rule: zk_session_timeout_seen')
    const line = r.stdout.split('\n').find((l) => l.startsWith('::error file=rules/tests/jvm.yaml,'))
    expect(line).toMatch(new RegExp(`^::error file=rules/tests/jvm\\.yaml,line=${failing.line},col=${failing.col},title=kafka-why rule-test/expect%3A [^:]*::lab-stw session timeout: expect zk_session_timeout_seen on broker 2%0A`))
  }, 60_000)

  it.each([
    ['lint', ['lint', '--format', 'sarif', 'rules']],
    ['test', ['test', '--format', 'sarif', 'rules/tests', '--rules', 'rules/jvm.rules']],
  ])('%s --format sarif is valid SARIF 2.1.0 and locates each finding', async (_name, args) => {
    const r = await kafkaWhyInProcess(args, {}, repo)
    expect(r.code).toBe(1)
    const log = JSON.parse(r.stdout)
    const validate = validatorForSarif()
    expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true)
    const results = log.runs[0].results as { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } } }[] }[]
    expect(results.length).toBeGreaterThan(0)
    const where = results.map((x) => `${x.ruleId} ${x.locations[0].physicalLocation.artifactLocation.uri}:${x.locations[0].physicalLocation.region.startLine}:${x.locations[0].physicalLocation.region.startColumn}`)
    const expected = _name === 'lint' ? ['DSL012', 'rules/broken.rules', positionOf(BROKEN_RULES, 'safepoint.synch')] : ['rule-test/expect', 'rules/tests/jvm.yaml', positionOf(BASE_TESTS + FAILING_CASE, 'rule: zk_session_timeout_seen')]
    const [code, file, pos] = expected as [string, string, { line: number; col: number }]
    expect(where).toContain(`${code} ${file}:${pos.line}:${pos.col}`)
  }, 60_000)

  it('lint --format checkstyle names each finding with line, column and code', async () => {
    const r = await kafkaWhyInProcess(['lint', '--format', 'checkstyle', 'rules'], {}, repo)
    const unknown = positionOf(BROKEN_RULES, 'safepoint.synch')
    expect(r.stdout).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<checkstyle version="4.3">/)
    expect(r.stdout).toContain('<file name="rules/broken.rules">')
    expect(r.stdout).toContain(`<error line="${unknown.line}" column="${unknown.col}" severity="error" message="DSL012 unknown signal: unknown signal &apos;safepoint.synch&apos;`.replace(/&apos;/g, "'"))
  }, 60_000)

  it.each([
    [['ci'], 2, /required option '--base <ref>' not specified/],
    [['ci', '--base', 'no-such-branch'], 2, /unknown git ref 'no-such-branch'/],
    [['ci', '--base', 'main', '--format', 'html'], 2, /argument 'html' is invalid. Allowed choices are text, markdown, json/],
    [['ci', '--base', 'main', '--since', '7d', '--replay', 'incidents/lab-stw'], 2, /option '--since <duration>' cannot be used with option '--replay <paths>'/],
  ])('ci %j: one clear line, exit %i', async (args, code, message) => {
    const r = await kafkaWhyInProcess(args, {}, repo)
    expect(r.code).toBe(code)
    expect(r.stderr).toMatch(message)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  }, 60_000)

  it('ci without a store or recordings says the backtest had no history', async () => {
    const r = await kafkaWhyInProcess(['ci', '--base', 'origin/main'], {}, clean)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('backtest: no history to backtest against: set REDIS_URL')
  }, 60_000)
})

describe('test/cli/ci: GitHub workflow-command escaping', () => {
  // The table GitHub's toolkit (@actions/core, command.ts) applies: data escapes %, CR, LF; properties also ':' and ','.
  it.each([
    ['100% done', '100%25 done', '100%25 done'],
    ['a\r\nb', 'a%0D%0Ab', 'a%0D%0Ab'],
    ['dir:file,1', 'dir:file,1', 'dir%3Afile%2C1'],
    ['%0A', '%250A', '%250A'],
  ])('%j → data %j, property %j', (input, data, property) => {
    expect(escapeGithubData(input)).toBe(data)
    expect(escapeGithubProperty(input)).toBe(property)
  })
})

/** The incident as if it happened two hours ago, written where serve's adapters would write it. */
async function storeIncidentTwoHoursAgo(store: RedisStore): Promise<void> {
  const batches: Parameters<typeof store.append>[0][] = []
  for await (const batch of readSignalSources([INCIDENT])) batches.push(batch)
  const first = Math.min(...batches.flat().map((s) => s.at))
  const shift = Date.now() - 2 * 3_600_000 - first
  for (const batch of batches) await store.append(batch.map((s) => ({ ...s, at: s.at + shift })))
}
