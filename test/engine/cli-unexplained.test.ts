import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'

// `replay` and `why` as a user runs them, on logs whose only content is an error: the answer is
// never "0 signals" or "no signals stored yet". Lines are real: KAFKA-13266's fetcher error as the
// pull request quotes it (one line, stack flattened), and HotSpot's banner from a docker-compose
// report (test/corpus/jvm-commit-memory-failed-docker-compose), without timestamps.
// The command line runs in-process (a process of its own costs 2.5 s of CPU loading modules); replay's
// and why's exit codes through a process are held by test/engine/cli-commands.test.ts.
/** Each test runs the CLI once or twice; a loaded CI machine needs more than vitest's 5 s default. */
const CLI_TIMEOUT_MS = 180_000
const FETCHER_ERROR = "[2021-08-31 11:31:25,092] ERROR [ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] Unexpected error occurred while processing data for partition __consumer_offsets-1 at offset 31727 (kafka.server.ReplicaFetcherThread)java.lang.IllegalStateException: Offset mismatch for partition __consumer_offsets-1: fetched offset = 31727, log end offset = 31728. at kafka.server.ReplicaFetcherThread.processPartitionData(ReplicaFetcherThread.scala:194) at kafka.server.AbstractFetcherThread.$anonfun$processFetchRequest$8(AbstractFetcherThread.scala:545) at scala.Option.foreach(Option.scala:437) at kafka.server.AbstractFetcherThread.$anonfun$processFetchRequest$7(AbstractFetcherThread.scala:533) at kafka.server.AbstractFetcherThread.$anonfun$processFetchRequest$7$adapted(AbstractFetcherThread.scala:532) at kafka.utils.Implicits$MapExtensionMethods$.$anonfun$forKeyValue$1(Implicits.scala:62) at scala.collection.convert.JavaCollectionWrappers$JMapWrapperLike.foreachEntry(JavaCollectionWrappers.scala:359) at scala.collection.convert.JavaCollectionWrappers$JMapWrapperLike.foreachEntry$(JavaCollectionWrappers.scala:355) at scala.collection.convert.JavaCollectionWrappers$AbstractJMapWrapper.f"
const JVM_BANNER = [
  "OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x00000000c0000000, 1073741824, 0) failed; error='Out of memory' (errno=12)",
  '#',
  '# There is insufficient memory for the Java Runtime Environment to continue.',
  '# Native memory allocation (mmap) failed to map 1073741824 bytes for committing reserved memory.',
  '# An error report file with more information is saved as:',
  '# /tmp/hs_err_pid1.log',
].join('\n')

describe('cli: errors alone are signals', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-unexplained-'))
    await writeFile(path.join(dir, 'server.log'), `${FETCHER_ERROR}\n`)
    await writeFile(path.join(dir, 'kafkaServer.out'), `${JVM_BANNER}\n`)
    // One rule that explains none of these errors, so what is "unexplained" does not depend on how
    // far the shipped rule pack has grown (it may well come to explain this fetcher error).
    await writeFile(path.join(dir, 'pause.rules'), 'rule pause\n  severity critical\n  when safepoint.sync > 2s\n  then cause "pause"\n')
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('replay of a log holding only an ERROR line with its stack reports its signal', async () => {
    const r = await kafkaWhyInProcess(['replay', path.join(dir, 'server.log')])
    expect(r.code).toBe(0)
    expect(Number(/ingested (\d+) signals/.exec(r.stdout)?.[1])).toBeGreaterThan(0)
  }, CLI_TIMEOUT_MS)

  it('replay of a file without any timestamp (a JVM fatal banner) reports its signals', async () => {
    const r = await kafkaWhyInProcess(['replay', path.join(dir, 'kafkaServer.out')])
    expect(r.code).toBe(0)
    expect(Number(/ingested (\d+) signals/.exec(r.stdout)?.[1])).toBeGreaterThan(0)
  }, CLI_TIMEOUT_MS)

  it('why answers with the unexplained error, as text and as JSON, instead of "no signals stored yet"', async () => {
    const text = await kafkaWhyInProcess(['why', '1', '--replay', path.join(dir, 'server.log'), '--rules', path.join(dir, 'pause.rules')])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('Unexplained errors (no matched rule accounts for them):')
    expect(text.stdout).toContain('Unexpected error occurred while processing data for partition')
    expect(text.stdout).not.toContain('nothing abnormal')
    const json = await kafkaWhyInProcess(['why', '1', '--replay', path.join(dir, 'server.log'), '--rules', path.join(dir, 'pause.rules'), '--json'])
    expect(json.code).toBe(0)
    const d = JSON.parse(json.stdout)
    expect(d.unexplained).toHaveLength(1)
    expect(d.unexplained[0]).toMatchObject({ severity: 'error', count: 1, novel: true, firstAt: Date.parse('2021-08-31T11:31:25.092Z') })
    expect(d.unexplained[0].exception).toBe('java.lang.IllegalStateException')
  }, CLI_TIMEOUT_MS)

  it('why on an undated file says its times are unknown and shows the fatal banner', async () => {
    const r = await kafkaWhyInProcess(['why', '1', '--replay', path.join(dir, 'kafkaServer.out'), '--rules', path.join(dir, 'pause.rules'), '--json'])
    expect(r.code).toBe(0)
    const d = JSON.parse(r.stdout)
    expect(d.timesUnknown.files).toEqual([path.join(dir, 'kafkaServer.out')])
    expect(d.timesUnknown.signals).toBeGreaterThan(0)
    const shown: string[] = [
      ...d.unexplained.map((u: { example: string }) => u.example),
      ...d.causes.flatMap((c: { evidence: { text?: string }[] }) => c.evidence.map((e) => e.text ?? '')),
    ]
    expect(shown.some((t) => t.includes('There is insufficient memory for the Java Runtime Environment'))).toBe(true)
  }, CLI_TIMEOUT_MS)
})
