import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'

/**
 * Which released source code the wording catalogue is mined from, and how it is fetched: the `sources`
 * jars Maven Central publishes for every Kafka and ZooKeeper release, through the local Maven cache
 * (~/.m2), so a rerun downloads nothing it already has.
 */

/** One product release and the modules whose sources hold broker-side (and client-side) log statements. */
export type Release = { product: 'kafka' | 'zookeeper'; version: string; group: string; modules: readonly string[] }

/** Modules Kafka split out of the core jar, as Maven Central publishes them for each sampled release. */
const SPLIT_28 = ['kafka-metadata', 'kafka-raft']
const SPLIT_36 = [...SPLIT_28, 'kafka-storage', 'kafka-storage-api', 'kafka-server-common', 'kafka-group-coordinator']
const SPLIT_39 = [...SPLIT_36, 'kafka-server', 'kafka-group-coordinator-api', 'kafka-transaction-coordinator']
const SPLIT_41 = [...SPLIT_39, 'kafka-coordinator-common', 'kafka-share-coordinator']

/**
 * The releases users still run, oldest first (the order version ranges are written in). Add a release
 * at the end of its product's list and rerun `npm run wording`: the table diff shows what it added.
 */
export const RELEASES: readonly Release[] = [
  { product: 'kafka', version: '0.10.2.2', group: 'org.apache.kafka', modules: ['kafka_2.11', 'kafka-clients'] },
  { product: 'kafka', version: '1.1.1', group: 'org.apache.kafka', modules: ['kafka_2.12', 'kafka-clients'] },
  { product: 'kafka', version: '2.3.1', group: 'org.apache.kafka', modules: ['kafka_2.12', 'kafka-clients'] },
  { product: 'kafka', version: '2.8.2', group: 'org.apache.kafka', modules: ['kafka_2.13', 'kafka-clients', ...SPLIT_28] },
  { product: 'kafka', version: '3.6.2', group: 'org.apache.kafka', modules: ['kafka_2.13', 'kafka-clients', ...SPLIT_36] },
  { product: 'kafka', version: '3.9.1', group: 'org.apache.kafka', modules: ['kafka_2.13', 'kafka-clients', ...SPLIT_39] },
  { product: 'kafka', version: '4.1.1', group: 'org.apache.kafka', modules: ['kafka_2.13', 'kafka-clients', ...SPLIT_41] },
  { product: 'zookeeper', version: '3.4.14', group: 'org.apache.zookeeper', modules: ['zookeeper'] },
  { product: 'zookeeper', version: '3.5.10', group: 'org.apache.zookeeper', modules: ['zookeeper'] },
  { product: 'zookeeper', version: '3.8.4', group: 'org.apache.zookeeper', modules: ['zookeeper'] },
]

/** Where Maven keeps a module's sources jar. */
export function sourcesJarPath(group: string, module: string, version: string): string {
  return path.join(homedir(), '.m2', 'repository', ...group.split('.'), module, version, `${module}-${version}-sources.jar`)
}

/**
 * The sources jar of one module, downloaded by `mvn dependency:get` when the cache lacks it; undefined
 * when Maven Central has no such artifact (a module split out later than that release). Any other
 * Maven failure (network, settings) is an error.
 */
export function fetchSourcesJar(group: string, module: string, version: string): string | undefined {
  const jar = sourcesJarPath(group, module, version)
  if (existsSync(jar)) return jar
  try {
    execFileSync('mvn', ['-q', '-B', 'dependency:get', '-Dtransitive=false', `-Dartifact=${group}:${module}:${version}:jar:sources`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  } catch (e) {
    const out = (e as { stdout?: Buffer }).stdout?.toString() ?? ''
    if (/Could not find artifact|could not be resolved|was not found/.test(out)) return undefined
    throw new Error(`mvn could not fetch ${group}:${module}:${version} sources: ${out.split('\n').find((l) => l.includes('ERROR')) ?? (e as Error).message}`)
  }
  if (!existsSync(jar)) throw new Error(`mvn reported success but ${jar} is missing`)
  return jar
}

/** A production source file: Java or Scala, not a test. */
export function isProductionSource(name: string): boolean {
  return /\.(?:java|scala)$/.test(name) && !/(?:^|\/)(?:test|tests|testFixtures)\//.test(name) && !/Test\.(?:java|scala)$/.test(name)
}

/** Unpacks a jar's Java/Scala files into a scratch folder and yields (name, text) pairs; the folder is removed after. */
export function* readSources(jar: string): Generator<{ name: string; text: string }> {
  const dir = path.join(tmpdir(), `kafka-why-wording-${process.pid}-${path.basename(jar, '.jar')}`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  try {
    try {
      execFileSync('unzip', ['-q', '-o', jar, '*.java', '*.scala', '-d', dir], { stdio: ['ignore', 'pipe', 'pipe'] })
    } catch (e) {
      // unzip exits 11 when one of the patterns matched nothing (a Java-only jar has no .scala).
      if ((e as { status?: number }).status !== 11) throw e
    }
    const walk = (rel: string): string[] =>
      readdirSync(path.join(dir, rel)).flatMap((n) => {
        const r = rel ? `${rel}/${n}` : n
        return statSync(path.join(dir, r)).isDirectory() ? walk(r) : [r]
      })
    for (const name of walk('').sort()) {
      if (!isProductionSource(name)) continue
      yield { name, text: readFileSync(path.join(dir, name), 'utf8') }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
