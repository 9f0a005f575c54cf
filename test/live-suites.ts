/**
 * The test files that start a real Kafka broker (lab/cluster.ts through lab/kafka-runtime.ts: Java, and
 * Apache Kafka's jars fetched from Maven Central by lab/fetch-kafka.sh), or install the packed tarball
 * from the npm registry. `npm test` leaves them out so it runs in minutes with Redis alone;
 * `npm run test:live` runs exactly these. Each names what it needs.
 */
export const LIVE_SUITES: Record<string, string> = {
  'test/adapters/admin/kafka-admin.test.ts': 'a 1-broker cluster',
  'test/bot/admin.test.ts': 'a 1-broker cluster',
  'test/deploy/npm-pack.test.ts': 'the npm registry (or its cache) to install the packed tarball into an empty prefix',
  'test/lab/cluster-keep.test.ts': 'a 1-broker cluster kept after the CLI exits',
  'test/lab/cluster.test.ts': 'ZooKeeper and KRaft clusters',
  'test/lab/live-slack.test.ts': 'a 3-broker cluster, Redis and a Slack stand-in',
  'test/lab/scenarios.test.ts': 'every fault scenario (tmpfs, iptables, xfs_io where the fault needs them)',
  'test/lab/versions.test.ts': 'Kafka 3.6.2 (lab/fetch-kafka.sh 3.6.2)',
  'test/serve/replicas.test.ts': 'a 1-broker cluster and Redis',
  'test/serve/serve.test.ts': 'a 1-broker cluster and Redis',
  'test/serve/store-failover.test.ts': 'a 1-broker cluster and a 6-node Redis Cluster',
}
