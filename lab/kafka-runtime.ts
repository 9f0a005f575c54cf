import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The lab/ directory, where the fetch script, log4j and exporter configs live. */
export const LAB_DIR = dirname(fileURLToPath(import.meta.url))

/** The repository root, for default cache and incident paths. */
export const REPO_DIR = resolve(LAB_DIR, '..')

/** Where lab/fetch-kafka.sh puts the jars: $KAFKA_WHY_CACHE or <repo>/.cache/kafka. */
export function kafkaCacheDir(): string {
  return process.env.KAFKA_WHY_CACHE ? resolve(process.env.KAFKA_WHY_CACHE) : join(REPO_DIR, '.cache', 'kafka')
}

/** Paths of the fetched runtime: the broker/tools classpath and the exporter agent jar. */
export type KafkaRuntime = {
  cacheDir: string
  /** A java -cp value (the lib/* wildcard). */
  classpath: string
  exporterAgent: string
  java: string
  javac: string
  jar: string
}

/** Why the lab cannot run here, or undefined when java, javac and mvn (or a filled cache) are present. */
export function labUnavailableReason(): string | undefined {
  const tools = process.env.JAVA_HOME ? [join(process.env.JAVA_HOME, 'bin', 'java')] : ['java']
  for (const t of [...tools, 'javac']) {
    const r = spawnSync(t, ['-version'], { stdio: 'ignore' })
    if (r.error) return `${t} not found (apt-get install openjdk-17-jdk-headless)`
  }
  if (!existsSync(join(kafkaCacheDir(), 'READY'))) {
    const mvn = spawnSync('mvn', ['-v'], { stdio: 'ignore' })
    if (mvn.error) return 'mvn not found and no fetched Kafka jars (apt-get install maven)'
  }
  return undefined
}

function javaTool(name: string): string {
  return process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', name) : name
}

/**
 * Makes sure Kafka's jars are in the cache (running lab/fetch-kafka.sh when they are not) and returns
 * where everything is. Throws with the script's output when fetching fails.
 */
export function ensureKafkaRuntime(): KafkaRuntime {
  const cacheDir = kafkaCacheDir()
  const lib = join(cacheDir, 'lib')
  const agent = join(cacheDir, 'agent', 'jmx_prometheus_javaagent.jar')
  const ready = existsSync(join(cacheDir, 'READY')) && existsSync(agent) && existsSync(lib)
  if (!ready) {
    const r = spawnSync(join(LAB_DIR, 'fetch-kafka.sh'), [], { encoding: 'utf8', env: { ...process.env, KAFKA_WHY_CACHE: cacheDir } })
    if (r.status !== 0) throw new Error(`lab/fetch-kafka.sh failed (${r.status ?? r.error?.message}):\n${r.stdout}${r.stderr}`)
  }
  if (!readdirSync(lib).some((f) => f.startsWith('kafka_2.13-'))) throw new Error(`no kafka_2.13 jar in ${lib}`)
  return { cacheDir, classpath: `${lib}/*`, exporterAgent: agent, java: javaTool('java'), javac: javaTool('javac'), jar: javaTool('jar') }
}
