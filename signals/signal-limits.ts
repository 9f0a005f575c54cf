/**
 * How big each field of one signal may be. Everything a log line, a scrape or a signals-topic record
 * carries ends up as Redis members and keys kept for the whole retention; without a bound, one
 * record with 1 MiB labels, a 1 MiB source and a 1 MiB cluster name is a 5 MB key that every
 * read then moves. The evidence text is cut (the timeline needs its start); any other field over its
 * bound refuses the signal, counted by reason in AppendResult.rejected and WriteOutcome.rejected.
 * The figures sit well above every real value recorded in test/incidents and test/corpus.
 */
export const SIGNAL_LIMITS = {
  /** Raw evidence text kept per signal (cut beyond, ending in "…"): one log line or a record's head and its telling line. */
  textChars: 2048,
  /** Labels per signal. */
  labels: 32,
  /** One label's name. */
  labelKeyChars: 128,
  /** One label's value (a masked log pattern is at most 400; a topic name 249). */
  labelValueChars: 2048,
  /** All label names and values of one signal together: what one stored member may carry beside its text. */
  labelsChars: 8192,
  /** A signal's source (file path and line, scrape URL, topic and offset). */
  sourceChars: 1024,
  /** A cluster name (a key part of every scope). */
  clusterChars: 128,
} as const
