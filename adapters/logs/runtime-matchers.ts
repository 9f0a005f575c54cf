import type { Draft, LogRecord, Matcher } from './matchers.js'
import type { LogFormat } from './types.js'

/**
 * Matcher rows for Kafka Connect and Kafka Streams, in the runtimes' own words (the tables
 * adapters/logs/wording/{connect,streams}-wording.tsv, mined from connect-runtime and kafka-streams;
 * the older wordings from the 2.x sources named on each row). A worker's or application's log is a
 * client log when it also holds the Java client's lines and a broker-style log when it does not (a
 * pasted excerpt of the runtime's lines alone), so the rows read both: these wordings are the
 * runtimes' only, a broker never writes them.
 */
const RUNTIME: readonly LogFormat[] = ['client', 'kafka']

/** `WorkerSinkTask{id=orders-sink-0}` (2.0+), `Task orders-sink-0` (1.x): the task id, and the connector it belongs to. */
function taskOf(text: string): { task?: string; connector?: string } {
  const m = /\bWorker(?:Sink|Source|)Task\{id=([^}\s]+)\}|\bTask (\S+?-\d+)\b/.exec(text)
  const task = m?.[1] ?? m?.[2]
  if (!task) return {}
  return { task, connector: task.replace(/-\d+$/, '') }
}

/** `stream-thread [app-uuid-StreamThread-1]`, `stream-client [app-uuid]`: the thread or client a Streams line is about. */
function streamsScopeOf(text: string): { thread?: string; client?: string } {
  const t = /stream-thread \[([^\]\s]+)\]/.exec(text)
  if (t) return { thread: t[1] }
  const c = /stream-client \[([^\]\s]+)\]/.exec(text)
  return c ? { client: c[1] } : {}
}

/** The first exception the record carries (the line's own, else the trace after it), as its class's simple name. */
function exceptionOf(rec: LogRecord): string | undefined {
  for (const line of rec.lines) {
    const m = /(?:^|\s|Caused by: )((?:[a-z_$][\w$]*\.)+([A-Z][\w$]*(?:Exception|Error)))(?::|\s*$)/.exec(line)
    if (m) return m[2]
  }
  return undefined
}

const draft = (name: string, labels: Record<string, string | undefined>, value?: number): Draft => {
  const l: Record<string, string> = { library: 'java' }
  for (const [k, v] of Object.entries(labels)) if (v !== undefined) l[k] = v
  return { name, labels: l, ...(value !== undefined ? { value } : {}) }
}

export const RUNTIME_MATCHERS: readonly Matcher[] = [
  // R1. A Connect task died. connect-runtime WorkerTask 2.0-3.9 "{} Task threw an uncaught and unrecoverable
  //     exception" (until 2.x followed by "{} Task is being killed and will not recover until manually
  //     restarted", merged into one line in later releases), WorkerSinkTask 3.x "… Error: {}"; 1.x "Task {}
  //     threw an uncaught and unrecoverable exception". The kill line alone counts once, as the same event.
  {
    literals: ['threw an uncaught and unrecoverable exception', 'Task is being killed and will not recover'],
    scope: 'message',
    formats: RUNTIME,
    re: /threw an uncaught and unrecoverable exception(?! during shutdown)|Task is being killed and will not recover until manually restarted/,
    build: (_m, rec) => {
      const text = rec.header.message
      // Until 2.x the kill line follows the uncaught-exception line: one event, counted at the first line.
      const killOnly = !/unrecoverable exception/.test(text)
      return draft('connect.task_failed', { ...taskOf(text), exception: exceptionOf(rec), kind: killOnly ? 'killed' : 'uncaught' })
    },
  },
  // R2. A source task's offset flush ran out of time: the producer had not delivered the records sent before
  //     it within offset.flush.timeout.ms. WorkerSourceTask 0.10 "Failed to flush {}, timed out while waiting for
  //     producer to flush outstanding {} messages", 1.0-2.8 "{} Failed to flush, timed out while
  //     waiting for producer to flush outstanding {} messages"; 3.x "{} Timed out waiting to flush offsets to
  //     storage; will try again on next flush interval with latest offsets"; WorkerSinkTask "{} Commit of
  //     offsets timed out" (a sink's consumer commit).
  {
    literals: ['timed out while waiting for producer to flush', 'Timed out waiting to flush offsets to storage', 'Commit of offsets timed out'],
    scope: 'message',
    formats: RUNTIME,
    re: /Failed to flush(?: \S+)?, timed out while waiting for producer to flush outstanding (\d+) messages|Timed out waiting to flush offsets to storage|Commit of offsets timed out/,
    build: (m, rec) =>
      draft('connect.offset_flush_timeout', { ...taskOf(rec.header.message), side: /Commit of offsets/.test(m[0]) ? 'sink' : 'source' }, m[1] !== undefined ? Number(m[1]) : undefined),
  },
  // R2b. The periodic offset commit that follows a failed flush. SourceTaskOffsetCommitter 1.0-3.9 "{} Failed to
  //     commit offsets", 0.10 "Failed to commit offsets for {}" (ERROR); the flush line before it says why.
  {
    literals: ['Failed to commit offsets'],
    scope: 'message',
    formats: RUNTIME,
    re: /\bFailed to commit offsets(?: for \S+)?$/,
    build: (_m, rec) => draft('connect.offset_commit_failed', { ...taskOf(rec.header.message) }),
  },
  // R3. A Streams thread or client died on an exception. StreamThread 1.0-2.7 "stream-thread [{}] Encountered the
  //     following {unexpected Kafka |}exception during processing and the thread is going to shut down: ";
  //     KafkaStreams 2.8-3.9 "Encountered the following exception during processing and the registered
  //     exception handler opted to {}. The streams client is going to shut down now. ", "… and sent shutdown
  //     request for the entire application."; "All stream threads have died. The instance will be in error
  //     state and should be closed."; "Global thread has died. The streams application or client will now
  //     close to ERROR."
  {
    literals: ['Encountered the following', 'All stream threads have died', 'Global thread has died'],
    scope: 'message',
    formats: RUNTIME,
    re: /Encountered the following (?:unexpected Kafka )?(?:exception|error) during processing(?:.*?opted to (\w+))?|All stream threads have died|Global thread has died/,
    build: (m, rec) => draft('streams.thread_died', { ...streamsScopeOf(rec.header.message), exception: exceptionOf(rec), ...(m[1] ? { handler: m[1] } : {}), kind: /^All|^Global/.test(m[0]) ? (m[0].startsWith('All') ? 'all_threads' : 'global_thread') : 'exception' }),
  },
  // R4. Streams state transitions towards an end: KafkaStreams and StreamThread 1.0-3.9 "stream-client [{}]
  //     State transition from {} to {}", "stream-thread [{}] State transition from {} to {}" (INFO). Only the
  //     ends are signals: ERROR, PENDING_ERROR, PENDING_SHUTDOWN, DEAD, NOT_RUNNING.
  {
    literals: ['State transition from'],
    scope: 'message',
    formats: RUNTIME,
    re: /(stream-(?:client|thread)) \[[^\]]*\] State transition from (\w+) to (ERROR|PENDING_ERROR|PENDING_SHUTDOWN|DEAD|NOT_RUNNING)\b/,
    build: (m, rec) => draft('streams.state_transition', { ...streamsScopeOf(rec.header.message), scope: m[1] === 'stream-client' ? 'client' : 'thread', from: m[2], to: m[3] }),
  },
  // R5. A Streams thread dropped out of its group and its tasks moved away. StreamThread 2.0-3.9 "Detected task
  //     {} that got migrated to another thread. This implies that this thread missed a rebalance and dropped out
  //     of the consumer group. …", "Detected that the thread is being fenced. This implies that this thread
  //     missed a rebalance and dropped out of the consumer group. …"; TaskExecutor 3.x "Failed to process stream
  //     task {} since it got migrated to another thread already. …"; the exception itself,
  //     org.apache.kafka.streams.errors.TaskMigratedException, as applications print it.
  {
    literals: ['got migrated to another thread', 'Detected that the thread is being fenced', 'TaskMigratedException'],
    scope: 'message',
    formats: RUNTIME,
    re: /got migrated to another thread|Detected that the thread is being fenced|TaskMigratedException/,
    build: (_m, rec) => {
      // Under exactly-once the transaction coordinator fences the thread's producer (its epoch was bumped: a
      // transaction timed out, or another instance took the transactional id); else the group moved on.
      const fenced = rec.lines.some((l) => /Producer got fenced|ProducerFencedException|InvalidProducerEpochException/.test(l))
      return draft('streams.task_migrated', { ...streamsScopeOf(rec.header.message), kind: fenced ? 'producer_fenced' : 'missed_rebalance' })
    },
  },
  // R6. The runtimes' own requests to the brokers that ran out of time, as the client signal a Java client's
  //     timeout gives. Connect KafkaBasedLog 2.3-3.9 "Timeout while reading log to end for topic '{}'. Retrying
  //     automatically. This may occur when brokers are unavailable or unreachable. …" (its internal topics);
  //     Streams InternalTopicManager 2.8-3.9 "Could not create internal topics within {} milliseconds. …",
  //     "Creating topic {} timed out.", ClientUtils "The committed offsets request timed out, …", StreamsProducer
  //     "Timeout exception caught trying to initialize transactions. …".
  {
    literals: ['Timeout while reading log to end for topic', 'Could not create internal topics within', 'Creating topic ', 'The committed offsets request timed out', 'Timeout exception caught trying to initialize transactions'],
    scope: 'message',
    formats: RUNTIME,
    re: /Timeout while reading log to end for topic|Could not create internal topics within \d+ milliseconds|^Creating topic \S+ timed out\.|The committed offsets request timed out|Timeout exception caught trying to initialize transactions/,
    build: (m) => draft('client.request_timeout', {
      request: /log to end/.test(m[0]) ? 'ListOffsets' : /topic/.test(m[0]) ? 'CreateTopics' : /committed offsets/.test(m[0]) ? 'OffsetFetch' : 'InitProducerId',
    }),
  },
]
