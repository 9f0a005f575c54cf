import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { KafkaRuntime } from './kafka-runtime.js'
import { LAB_DIR } from './kafka-runtime.js'
import { spawnManaged, type ManagedProcess } from './managed-process.js'

const SOURCE = join(LAB_DIR, 'java', 'kafkawhy', 'lab', 'LegacyConsumer.java')

function jarIn(dir: string, prefix: string): string {
  const f = readdirSync(dir).find((n) => n.startsWith(prefix) && n.endsWith('.jar'))
  if (!f) throw new Error(`no ${prefix}*.jar in ${dir} (run lab/fetch-kafka.sh)`)
  return join(dir, f)
}

/**
 * The classpath of the old consumer: kafka-clients 0.10.1.1 with its compression libraries from the
 * cache's legacy/ folder, and the broker's slf4j + reload4j so its warnings use Kafka's layout.
 */
function legacyClasspath(runtime: KafkaRuntime): string[] {
  const legacy = join(runtime.toolsCacheDir, 'legacy')
  const lib = join(runtime.toolsCacheDir, 'lib')
  return [
    jarIn(legacy, 'kafka-clients-'),
    jarIn(legacy, 'lz4-'),
    jarIn(legacy, 'snappy-java-'),
    jarIn(lib, 'slf4j-api-'),
    jarIn(lib, 'slf4j-reload4j-'),
    jarIn(lib, 'reload4j-'),
  ]
}

/** Compiles lab/java/…/LegacyConsumer.java against the old client; rebuilt when the source is newer. */
function buildLegacyConsumer(runtime: KafkaRuntime): string {
  const out = join(runtime.toolsCacheDir, 'legacy-consumer')
  const marker = join(out, 'kafkawhy', 'lab', 'LegacyConsumer.class')
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(SOURCE).mtimeMs) return out
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  const javac = spawnSync(runtime.javac, ['--release', '8', '-nowarn', '-cp', legacyClasspath(runtime).join(':'), '-d', out, SOURCE], { encoding: 'utf8' })
  if (javac.status !== 0) throw new Error(`javac failed:\n${javac.stdout}${javac.stderr}`)
  return out
}

/**
 * Starts one consumer on the 0.10.1 client reading `topic` from the beginning for `seconds`; its
 * stdout gets a one-line summary, its stderr the client's WARN/ERROR log lines.
 */
export function startLegacyConsumer(runtime: KafkaRuntime, bootstrap: string, topic: string, seconds: number, logFile: string): ManagedProcess {
  const classes = buildLegacyConsumer(runtime)
  return spawnManaged(
    runtime.java,
    [
      '-Xmx256m',
      '-XX:+UseSerialGC',
      '-Duser.timezone=UTC',
      `-Dlog4j.configuration=file:${join(LAB_DIR, 'tools-log4j.properties')}`,
      '-cp',
      [classes, ...legacyClasspath(runtime)].join(':'),
      'kafkawhy.lab.LegacyConsumer',
      bootstrap,
      topic,
      String(seconds),
    ],
    { stdoutFile: logFile, stderrFile: logFile },
  )
}
