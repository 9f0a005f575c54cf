import type { LabCluster } from './cluster.js'
import type { KafkaRuntime } from './kafka-runtime.js'

/** What a scenario costs to run, stated in the README and by `kafka-why lab list`. */
export type ScenarioNeeds = {
  /** Typical wall time of one run on a 2-core machine, including start and stop. */
  seconds: number
  /** Peak resident memory of everything it starts, roughly. */
  memoryMb: number
  /** Which ports it listens on (all dynamic, 127.0.0.1 only). */
  ports: string
}

/** What the diagnosis of the recorded incident must say. */
export type ScenarioExpectation = {
  /** Rule id that must rank first; null for a healthy control, where no cause above info may fire. */
  topRule: string | null
  /** Other rule ids that may rank first instead (the same cause seen by a more specific rule). */
  alsoTop?: string[]
  /** Rule ids that must not appear among the causes at all. */
  absentRules: string[]
  /**
   * Rules that name the same root cause before the failure it leads to (roll-storm's
   * `roll_storm_building`: the topic's segment.ms, while the broker still has files left). A live run
   * counts a message naming one as naming the cause, and also times the message naming the failure;
   * the recorded diagnosis must still rank `topRule` first.
   */
  warnsFirst?: string[]
}

/** Everything one scenario run hands back after it has recorded its incident. */
export type ScenarioOutcome = {
  /** Incident directory name, `lab-<scenario>`. */
  slug: string
  outDir: string
  /** The broker to ask `why` about. */
  broker: string
  /** Epoch ms when the fault was injected. */
  faultAt: number
  expect: ScenarioExpectation
  /** Figures measured during the run, for the README (stall length, records sent, errors seen, …). */
  facts: Record<string, string | number>
}

/** What a scenario gets to work with. */
export type ScenarioContext = {
  runtime: KafkaRuntime
  /** Where the incident is written (test/incidents/lab-<name> unless overridden). */
  outDir: string
  /** Scratch directory for the cluster; removed afterwards unless kept. */
  workDir: string
  log: (message: string) => void
  /**
   * With `lab <scenario> --live`: starts `serve` and its Slack bot on the running cluster, told which
   * cause to listen for; resolves once they watch it. A scenario that has it calls it through
   * {@link startWatching} after its cluster is up and waits for it before injecting the fault.
   */
  watch?: (cluster: LabCluster, expect: ScenarioExpectation) => Promise<void>
}

/**
 * Starts ctx.watch (when the run is live) beside the scenario's warm-up; the returned call waits for
 * it, just before the fault, and rethrows its failure there.
 */
export function startWatching(ctx: ScenarioContext, cluster: LabCluster, expect: ScenarioExpectation): () => Promise<void> {
  if (!ctx.watch) return async () => undefined
  const watching = ctx.watch(cluster, expect)
  // Awaited by the caller before the fault; until then a failure must not count as unhandled.
  watching.catch(() => undefined)
  return () => watching
}

/** A reproducible fault on a real cluster that ends in a recorded incident. */
export type Scenario = {
  name: string
  summary: string
  needs: ScenarioNeeds
  /** What the machine must offer beyond Java (root, a kernel feature, a tool), for the docs' table. */
  requires?: string
  /** Why this machine cannot inject the fault (checked before any cluster starts), or undefined. */
  unavailable?(): string | undefined
  /** True when the scenario calls ctx.watch before its fault, so `--live` can time it. */
  watchable?: boolean
  run(ctx: ScenarioContext): Promise<ScenarioOutcome>
}
