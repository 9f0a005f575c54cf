import type { LabMode } from './cluster.js'

/** The Kafka release the lab runs unless told otherwise (tools and clients always come from it). */
export const DEFAULT_KAFKA_VERSION = '3.9.1'

/** Releases the lab has started on JDK 17 and recorded incidents on, besides the default. */
export const LAB_KAFKA_VERSIONS = ['0.10.2.2', '1.0.2', '2.8.2', '3.6.2', DEFAULT_KAFKA_VERSION, '4.1.1'] as const

/** What differs between Kafka releases when the lab starts one: jars, logging, JVM flags, config keys. */
export type KafkaVersionProfile = {
  version: string
  /** The Scala build of the broker artifact (kafka_<scala>), as lab/fetch-kafka.sh picks it. */
  scala: '2.11' | '2.12' | '2.13'
  /** Modes the release can run in: 4.x has no ZooKeeper mode, KRaft before 3.3 was not production-ready. */
  modes: LabMode[]
  /** log4j 1.x API (log4j 1.2, reload4j) or log4j 2 (Kafka 4.x), which reads another config file. */
  logging: 'log4j1' | 'log4j2'
  /** JVM options this broker needs on JDK 17 beyond the lab's own. */
  jvmArgs: string[]
  /** server.properties keys this release does not know (left out, so the broker logs no warnings for them). */
  unknownKeys: string[]
}

function parts(version: string): number[] {
  return version.split('.').map(Number)
}

/** True when `version` is `major.minor` or newer. */
export function atLeast(version: string, major: number, minor: number): boolean {
  const [a, b] = parts(version)
  return a > major || (a === major && b >= minor)
}

/** Throws with a one-line message when `version` is not a Kafka version number. */
export function checkKafkaVersion(version: string): void {
  if (!/^\d+\.\d+\.\d+(\.\d+)?$/.test(version)) throw new Error(`'${version}' is not a Kafka version (like 2.8.2)`)
  if (!atLeast(version, 0, 10)) throw new Error(`Kafka ${version} is older than the lab supports (0.10.0 and newer)`)
}

/**
 * The lab's knowledge of one release: what starting it on JDK 17 needed (docs/lab.md has the error
 * 0.10 gave without JAXB) and which config keys and modes it has.
 */
export function kafkaVersionProfile(version: string): KafkaVersionProfile {
  checkKafkaVersion(version)
  const [major] = parts(version)
  const scala = major <= 1 ? '2.11' : major === 2 ? '2.12' : '2.13'
  const modes: LabMode[] = major >= 4 ? ['kraft'] : atLeast(version, 3, 3) ? ['zk', 'kraft'] : ['zk']
  const jvmArgs: string[] = []
  // 0.10 unmaps index files through sun.nio.ch.DirectBuffer.cleaner() (AbstractIndex.forceUnmap),
  // which JDK 17 does not export to the classpath; 1.0 went through its own Java 9 cleaner lookup.
  // Opened so that path works as it did on Java 8.
  if (!atLeast(version, 1, 0)) jvmArgs.push('--add-exports=java.base/sun.nio.ch=ALL-UNNAMED', '--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED')
  const unknownKeys: string[] = []
  if (!atLeast(version, 0, 11)) {
    unknownKeys.push(
      'transaction.state.log.replication.factor',
      'transaction.state.log.min.isr',
      'transaction.state.log.num.partitions',
      'group.initial.rebalance.delay.ms',
    )
  }
  return { version, scala, modes, logging: major >= 4 ? 'log4j2' : 'log4j1', jvmArgs, unknownKeys }
}

/**
 * The system property that points a release's logging at the lab's config: log4j 1.x (and reload4j)
 * read log4j.configuration, log4j 2 reads log4j2.configurationFile. Both configs give the same files
 * and line layout.
 */
export function loggingJvmArg(profile: KafkaVersionProfile, labDir: string): string {
  return profile.logging === 'log4j2'
    ? `-Dlog4j2.configurationFile=${labDir}/log4j2.properties`
    : `-Dlog4j.configuration=file:${labDir}/log4j.properties`
}

/**
 * The incident directory name of a scenario recorded on `version`: lab-<scenario> on the default
 * release, lab-<scenario>-<version> on another.
 */
export function incidentSlug(scenario: string, version: string = DEFAULT_KAFKA_VERSION): string {
  return version === DEFAULT_KAFKA_VERSION ? `lab-${scenario}` : `lab-${scenario}-${version}`
}

/** How a README names the release and mode a scenario ran on ("Apache Kafka 2.8.2"). */
export function kafkaLabel(version: string): string {
  return `Apache Kafka ${version === DEFAULT_KAFKA_VERSION ? '3.9' : version}`
}

/** The command that records a scenario on `version`, as READMEs state it. */
export function labCommand(scenario: string, version: string = DEFAULT_KAFKA_VERSION): string {
  return version === DEFAULT_KAFKA_VERSION ? `npm run lab -- ${scenario}` : `npm run lab -- ${scenario} --kafka-version ${version}`
}
