import type { FailureClass } from './failure-class.js'

/**
 * Per-template corrections to the mechanism of failure-class.ts, keyed by wording template id (the
 * first column of adapters/logs/wording/*.tsv). Only where the mechanism gets a template wrong: each
 * entry says why, in its class or benign reason. A template that leaves the tables (a regenerated
 * catalogue) makes its entry stale, which test/engine/failure-class.test.ts reports.
 */
export type TemplateOverride = { failureClass: FailureClass; why: string } | { benign: string }

/** Overrides by template id. */
export const TEMPLATE_OVERRIDES: Readonly<Record<string, TemplateOverride>> = {
  // Statements whose whole text is built elsewhere ("{}"): the live line is classified by its own words;
  // the template itself gets the class of what its logger relays.
  '3029e77096': { benign: 'CoreUtils.swallow: an error swallowed while a component shuts down; the shutdown goes on' },
  '4696fc3f77': { benign: 'CoreUtils.swallow: an error swallowed while a component shuts down; the shutdown goes on' },
  cb47ad34fc: { benign: 'Utils.closeQuietly and friends: a resource failed to close; its owner is already stopping' },
  ce47c13e7f: { benign: 'Utils.closeQuietly and friends: a resource failed to close; its owner is already stopping' },
  '4e69ef8816': { failureClass: 'client_request', why: 'LogContext relays the Java client\'s own messages, whose wording is built by the caller' },
  '6b7bca7ce8': { failureClass: 'client_request', why: 'LogContext relays the Java client\'s own messages, whose wording is built by the caller' },
  '60c074166f': { failureClass: 'configuration', why: 'a JMX MBean name clash: two components (often two clients) registered under one name' },
  a78cfab676: { failureClass: 'configuration', why: 'the JDK lacks the SecurityManager methods this Kafka build expects: a JDK/Kafka version mismatch' },
  fe80816cbb: { failureClass: 'configuration', why: 'the JDK lacks the Subject methods this Kafka build expects: a JDK/Kafka version mismatch' },
  '7d93a1c2ec': { failureClass: 'storage', why: 'an atomic rename of a checkpoint or metadata file failed on this file system' },
  '8f7e7c20eb': { failureClass: 'client_request', why: 'librdkafka raises a fatal error for an idempotent or transactional producer whose sequence or epoch the broker rejected' },
  e18b10016c: { failureClass: 'client_request', why: 'librdkafka raises a fatal error for an idempotent or transactional producer whose sequence or epoch the broker rejected' },
  '4f1e29925f': { benign: 'raised only through librdkafka\'s test API (rd_kafka_test_fatal_error)' },
  '4098196792': { failureClass: 'network', why: 'librdkafka\'s per-broker error relay: the broker connection\'s own error, named with the broker id' },
  '73540f0a23': { failureClass: 'client_request', why: 'an ACL request with a pattern type this sarama cannot encode; the request is sent as Literal' },
  a760d1298d: { benign: 'librdkafka\'s mock cluster, a test facility; never in production' },
  '1a7e805f7b': { failureClass: 'configuration', why: 'a client retry backoff set above its maximum' },
}
