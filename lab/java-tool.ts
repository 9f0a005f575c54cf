import { join } from 'node:path'
import type { KafkaRuntime } from './kafka-runtime.js'
import { LAB_DIR } from './kafka-runtime.js'
import { spawnManaged, type ManagedProcess } from './managed-process.js'

/** Options for {@link startJavaTool}. */
export type JavaToolOptions = {
  /** Where the tool's stdout goes (progress lines of the perf tools). */
  stdoutFile?: string
  /** Where its log4j output (WARN and up, Kafka's layout, UTC) goes. */
  logFile?: string
  heapMb?: number
}

/**
 * Runs one of Kafka's command-line tools (e.g. org.apache.kafka.tools.ProducerPerformance, which is
 * what bin/kafka-producer-perf-test.sh runs) on the default release's classpath (whatever the broker's), as a managed process, with the
 * tools' log4j configuration so client warnings read as they do in production.
 */
export function startJavaTool(runtime: KafkaRuntime, mainClass: string, args: string[], options: JavaToolOptions = {}): ManagedProcess {
  const [java, ...javaArgs] = javaToolCommand(runtime, mainClass, args, options.heapMb)
  return spawnManaged(java, javaArgs, { stdoutFile: options.stdoutFile, stderrFile: options.logFile })
}

/** The command line {@link startJavaTool} runs, for a caller that wraps it (a pipeline). */
export function javaToolCommand(runtime: KafkaRuntime, mainClass: string, args: string[], heapMb = 256): string[] {
  return [
    runtime.java,
    `-Xmx${heapMb}m`,
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-Duser.timezone=UTC',
    `-Dlog4j.configuration=file:${join(LAB_DIR, 'tools-log4j.properties')}`,
    '-cp',
    runtime.toolsClasspath,
    mainClass,
    ...args,
  ]
}
