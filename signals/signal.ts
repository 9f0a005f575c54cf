/**
 * One time-stamped observation about one broker (or a whole cluster). Everything the engine knows
 * arrives as a Signal, whatever adapter produced it, so rules never care where evidence came from.
 */
export type Signal = {
  /** Catalogue name, e.g. "safepoint.sync". */
  name: string
  /** Epoch ms of the observation itself (from the log line or sample), never ingest time. */
  at: number
  cluster: string
  /** Broker id as text ("3"); absent for cluster-wide signals. */
  broker?: string
  /** In the catalogue's base unit (ms, bytes, ratio 0..1, per second, count, encoded version). */
  value?: number
  /** topic, partition, group, gc cause, … */
  labels?: Record<string, string>
  /** Which adapter, file and line (or scrape target) produced it: "log:/var/log/kafka/server.log:1234". */
  source: string
  /** The raw evidence line, kept for the evidence timeline. */
  text?: string
}
