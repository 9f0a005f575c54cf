import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseLogText } from '../../../adapters/logs/parser.js'
import { findTemplate } from '../../../adapters/logs/wording/lookup.js'

// Kafka Connect and Kafka Streams lines verbatim from the published reports named in each
// rules/tests/lines/*/incident.yaml, read by the real log reader whatever layout printed them.

const signalsOf = (path: string) => {
  const { signals } = parseLogText(readFileSync(path, 'utf8'), { path, cluster: 'runtime' })
  return signals.filter((s) => /^(?:connect|streams)\./.test(s.name)).map((s) => ({ name: s.name, labels: s.labels, value: s.value }))
}

describe('Kafka Connect and Kafka Streams lines', () => {
  it('reads a sink task killed by its connector in Kafka\'s log4j layout (kafka-connect-hdfs#481)', () => {
    expect(signalsOf('rules/tests/lines/connect-task-failed-hdfs/connect.log')).toEqual([
      { name: 'connect.task_failed', labels: { library: 'java', task: 'fdc_analysis-0', connector: 'fdc_analysis', exception: 'IllegalArgumentException', kind: 'uncaught' }, value: undefined },
    ])
  })

  it('reads Connect\'s "(class:line)" layout: the logger without its line, the message without the logger (udacity nd029#1)', () => {
    const path = 'rules/tests/lines/connect-offset-flush-timeouts/connect.log'
    const { signals } = parseLogText(readFileSync(path, 'utf8'), { path, cluster: 'runtime' })
    const flush = signals.filter((s) => s.name === 'connect.offset_flush_timeout')
    expect(flush.map((s) => [s.labels?.task, s.labels?.side, s.value])).toEqual([['redis-config-0', 'source', 1], ['redis-config-0', 'source', 1]])
    const errors = signals.filter((s) => s.name === 'log.error')
    expect(errors.map((s) => s.labels?.logger)).toEqual(['org.apache.kafka.connect.runtime.WorkerSourceTask', 'org.apache.kafka.connect.runtime.SourceTaskOffsetCommitter', 'org.apache.kafka.connect.runtime.WorkerSourceTask', 'org.apache.kafka.connect.runtime.SourceTaskOffsetCommitter'])
    // Both statements are rows of connect-wording.tsv (2.8.2's WorkerSourceTask, SourceTaskOffsetCommitter).
    expect(errors.map((s) => s.labels?.template)).toEqual(['f523613787', 'b9bbd832c8', 'f523613787', 'b9bbd832c8'])
  })

  it('keeps a host:port in parentheses in the message: only a class name takes a line number', () => {
    const line = '[2024-05-01 10:00:00,123] WARN [Producer clientId=p-1] Connection to node 1 (kafka-1.example.com:9092) could not be established. Broker may not be available. (org.apache.kafka.clients.NetworkClient:812)\n'
    const { signals } = parseLogText(line, { path: 'a.log', cluster: 'runtime' })
    expect(signals.find((s) => s.name === 'client.connect_failed')?.labels?.address).toBe('kafka-1.example.com:9092')
  })

  it('reads a Streams client shut down by a processing exception in Spring Boot\'s layout, and finds its template (apache/kafka#16093)', () => {
    expect(signalsOf('rules/tests/lines/streams-processing-exception-shutdown/app.log')).toEqual([
      { name: 'streams.thread_died', labels: { library: 'java', client: 'streams-map', exception: 'StreamsException', kind: 'exception' }, value: undefined },
    ])
    expect(findTemplate('stream-client [streams-map] Encountered the following exception during processing and sent shutdown request for the entire application.')?.id).toBe('e59be672c4')
  })

  it('reads a stream thread shutting down as a thread-scoped transition, not a client error (sitewhere#947); an orphan task\'s exception during shutdown is no task failure (kafka-connect-jdbc#1168)', () => {
    expect(signalsOf('rules/tests/lines/connect-streams-quiet-lookalikes/streams.log').map((s) => [s.name, s.labels?.scope, s.labels?.from, s.labels?.to])).toEqual([['streams.state_transition', 'thread', 'RUNNING', 'PENDING_SHUTDOWN']])
    expect(signalsOf('rules/tests/lines/connect-streams-quiet-lookalikes/connect.log').map((s) => s.name)).toEqual(['connect.offset_flush_timeout'])
  })
  it('reads Connect\'s MDC context ("[oracle-db-source|task-0] ") and "(class:line)" behind a collector\'s own stamp (kafka-connect-jdbc#1168, comment of 2023-09-06)', () => {
    // fixtures/connect-mdc-collector-prefix.log: the comment's first four lines, verbatim.
    const path = 'test/adapters/logs/fixtures/connect-mdc-collector-prefix.log'
    const { signals, layout, format } = parseLogText(readFileSync(path, 'utf8'), { path, cluster: 'runtime' })
    expect([layout, format]).toEqual(['apache', 'client'])
    const warn = signals.find((s) => s.name === 'log.warn_failure')
    expect(warn?.labels).toMatchObject({ logger: 'org.apache.kafka.clients.NetworkClient', template: '80e11e42cd' })
    // The record's own stamp, not the collector's (the two are an hour apart in the report).
    expect(new Date(warn!.at).toISOString()).toBe('2023-09-06T16:43:16.764Z')
  })

  it('reads Connect 0.10\'s wording of a flush timeout and of the failed commit after it (kafka-connect-jdbc#161)', () => {
    const path = 'rules/tests/lines/connect-offset-flush-timeouts-0.10/connect.log'
    const got = signalsOf(path)
    expect(got.filter((s) => s.name === 'connect.offset_flush_timeout').map((s) => s.value)).toEqual([386204, 415429, 413813])
    expect(got.filter((s) => s.name === 'connect.offset_commit_failed').map((s) => s.labels?.task)).toEqual(['qa-job-exporter16-0', 'qa-job-exporter16-0', 'qa-job-exporter16-0'])
  })
})
