import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_KAFKA_VERSION, kafkaVersionProfile, type KafkaVersionProfile } from './kafka-versions.js'

/** The lab/ directory, where the fetch script, log4j and exporter configs live. */
export const LAB_DIR = dirname(fileURLToPath(import.meta.url))

/** The repository root, for default cache and incident paths. */
export const REPO_DIR = resolve(LAB_DIR, '..')

/**
 * Where lab/fetch-kafka.sh puts the jars: $KAFKA_WHY_CACHE or <repo>/.cache/kafka for the default
 * release, that path with -<version> appended for another one.
 */
export function kafkaCacheDir(version: string = DEFAULT_KAFKA_VERSION): string {
  const base = process.env.KAFKA_WHY_CACHE ? resolve(process.env.KAFKA_WHY_CACHE) : join(REPO_DIR, '.cache', 'kafka')
  return version === DEFAULT_KAFKA_VERSION ? base : `${base}-${version}`
}

/** Paths of the fetched runtime: the broker classpath, the tools classpath and the exporter agent jar. */
export type KafkaRuntime = {
  /** The broker release these paths run. */
  version: string
  profile: KafkaVersionProfile
  /** The broker's cache (lib/, agent/). */
  cacheDir: string
  /** The broker's and its ZooKeeper's java -cp value (the lib/* wildcard). */
  classpath: string
  /**
   * The default release's cache, where the tools (kafka-producer-perf-test), the old 0.10 client
   * and the lab's agents live: current clients talk to every broker release the lab runs.
   */
  toolsCacheDir: string
  toolsClasspath: string
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

/** Fills one release's cache with lab/fetch-kafka.sh unless it is there; returns its lib/ and agent jar. */
function ensureCache(version: string): { cacheDir: string; lib: string; agent: string } {
  const cacheDir = kafkaCacheDir(version)
  const lib = join(cacheDir, 'lib')
  const agent = join(cacheDir, 'agent', 'jmx_prometheus_javaagent.jar')
  const ready = existsSync(join(cacheDir, 'READY')) && existsSync(agent) && existsSync(lib)
  if (!ready) {
    // The script appends -<version> to KAFKA_WHY_CACHE itself for another release.
    const env = { ...process.env, KAFKA_WHY_CACHE: kafkaCacheDir(), KAFKA_VERSION: version }
    const r = spawnSync(join(LAB_DIR, 'fetch-kafka.sh'), [], { encoding: 'utf8', env })
    if (r.status !== 0) throw new Error(`lab/fetch-kafka.sh ${version} failed (${r.status ?? r.error?.message}):\n${r.stdout}${r.stderr}`)
  }
  return { cacheDir, lib, agent }
}

/**
 * Makes sure the jars of broker release `version` (and of the default release, for tools and
 * clients) are in the cache, running lab/fetch-kafka.sh when they are not, and returns where
 * everything is. Throws with the script's output when fetching fails.
 */
export function ensureKafkaRuntime(version: string = DEFAULT_KAFKA_VERSION): KafkaRuntime {
  const profile = kafkaVersionProfile(version)
  const tools = ensureCache(DEFAULT_KAFKA_VERSION)
  const broker = version === DEFAULT_KAFKA_VERSION ? tools : ensureCache(version)
  const brokerJar = `kafka_${profile.scala}-${version}.jar`
  if (!readdirSync(broker.lib).includes(brokerJar)) throw new Error(`no ${brokerJar} in ${broker.lib}`)
  return {
    version,
    profile,
    cacheDir: broker.cacheDir,
    classpath: `${broker.lib}/*`,
    toolsCacheDir: tools.cacheDir,
    toolsClasspath: `${tools.lib}/*`,
    exporterAgent: broker.agent,
    java: javaTool('java'),
    javac: javaTool('javac'),
    jar: javaTool('jar'),
  }
}

/** The version of a bundled jar (e.g. `zookeeper` → 3.5.9) on the broker's classpath, for READMEs. */
export function bundledJarVersion(runtime: KafkaRuntime, artifact: string): string | undefined {
  const lib = join(runtime.cacheDir, 'lib')
  const jar = readdirSync(lib).find((f) => f.startsWith(`${artifact}-`) && /^\d/.test(f.slice(artifact.length + 1)))
  return jar?.slice(artifact.length + 1, -'.jar'.length)
}
