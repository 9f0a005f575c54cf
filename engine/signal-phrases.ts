/**
 * How a near miss names a signal to a person ("a ZooKeeper session timeout" rather than
 * "zk.session_timeout"), and what to look at when a rule's cause was *not* found. Data, so adding a
 * phrase never touches logic; names without an entry read as the signal name.
 */
export const SIGNAL_PHRASES: Record<string, string> = {
  'zk.session_timeout': 'a ZooKeeper session timeout',
  'zk.session_expired': 'a ZooKeeper session expiry',
  'zk.disconnected': 'a ZooKeeper disconnect',
  'kraft.broker_fenced': 'the controller fencing the broker',
  'kraft.heartbeat_failed': 'a failed controller heartbeat',
  'safepoint.sync': 'a safepoint sync',
  'safepoint.total': 'a stop-the-world pause',
  'gc.pause': 'a GC pause',
  'jvm.oom': 'an OutOfMemoryError',
  'isr.shrink': 'an ISR shrink',
  'leader.change': 'a leadership change',
  'client.not_leader': 'a NOT_LEADER error at a client',
  'log.segment_roll': 'a segment roll',
  'log.map_failed': 'a failed index mmap ("Map failed")',
  'log.dir_failure': 'a log dir failure',
  'fd.exhausted': '"Too many open files"',
  'fetch.down_conversion_error': 'a down-conversion error',
  'group.rebalance': 'a group rebalance',
  'group.member_failed': 'a failed group member',
  'broker.start': 'a broker start',
  'broker.shutdown': 'a broker shutdown',
  'scrape.unanswered': 'an unanswered scrape of its exporter',
  'controller.broker_lost': 'the controller dropping the broker',
  'process.state': 'a host agent reading of its process',
  'process.gone': 'its process gone',
  'peer.fetch_failed': 'a follower\'s failed fetch from it',
}

/** What to look at when the named signal was missing from an otherwise matching rule. */
export const MISSING_HINTS: Record<string, string> = {
  'safepoint.sync': 'the JVM was not paused long enough — look at the network, disk I/O or host stalls',
  'safepoint.total': 'the JVM was not paused long enough — look at the network, disk I/O or host stalls',
  'gc.pause': 'no long GC pause — look at the network, disk I/O or host stalls',
  'zk.session_timeout': 'the session survived; the pause alone did not move leadership',
  'config.segment_ms': 'segment.ms looks sane — check segment.bytes, retention and the number of partitions',
  'fetch.down_conversion': 'no down-conversion seen — look at heap sizing and request sizes (max_bytes)',
  'group.rebalance': 'no rebalance churn — look for other connection churn or a heap dump',
}

/**
 * What to say instead when the missing signal does not occur in the data at all: its log was most
 * likely not given, so its absence proves nothing (no safepoint log is not "no pause").
 */
export const NO_DATA_HINTS: Record<string, string> = {
  'safepoint.sync': 'no safepoint log was given, so a pause cannot be ruled out — add the GC/safepoint log of the same minutes',
  'safepoint.total': 'no safepoint log was given, so a pause cannot be ruled out — add the GC/safepoint log of the same minutes',
  'gc.pause': 'no GC log was given, so a long GC pause cannot be ruled out — add the GC log of the same minutes',
}

/** "a ZooKeeper session timeout", or the signal name when there is no phrase. */
export function phraseOf(signal: string): string {
  return SIGNAL_PHRASES[signal] ?? signal
}
