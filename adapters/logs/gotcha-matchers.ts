import type { Draft, Matcher } from './matchers.js'
import type { LogFormat } from './types.js'

/**
 * The lines of well-known setup mistakes: a client speaking the wrong protocol to a listener, a broker
 * that cannot bind or finds another broker's data, unformatted KRaft storage, TLS host-name and trust
 * failures, limits a producer or consumer was not configured for, ACL denials. Each becomes
 * `setup.mistake{id}` (ids in GOTCHA_IDS) with the part of the line that varies in `detail` and what it
 * concerns in `subject`, so rules/gotchas.rules keys on the mechanism, not on one report's values.
 * Every row names the Kafka / JDK source of its wording; rows are spliced into MATCHERS after the
 * failure rows.
 */

const KAFKA_CLIENT: readonly LogFormat[] = ['kafka', 'client']

/** The ids rules may filter on, one per mechanism; a test checks every row yields only these. */
export const GOTCHA_IDS = [
  'tls-client-on-plaintext-listener',
  'http-client-on-kafka-listener',
  'request-larger-than-socket-limit',
  'plaintext-client-on-sasl-listener',
  'sasl-client-on-plaintext-listener',
  'sasl-mechanism-not-enabled',
  'kraft-storage-not-formatted',
  'stored-node-id-mismatch',
  'listener-port-in-use',
  'listener-address-not-local',
  'advertised-meta-address',
  'message-format-above-protocol',
  'broker-host-unresolvable',
  'quorum-voter-host-unresolvable',
  'bootstrap-host-unresolvable',
  'tls-hostname-mismatch',
  'tls-untrusted-certificate',
  'producer-record-over-max-request-size',
  'broker-rejects-oversized-message',
  'session-timeout-out-of-range',
  'commit-after-rebalance',
  'metadata-topic-error',
  'acl-denied',
  'log-dir-on-windows',
  'zk-packet-over-jute-maxbuffer',
  'zk-server-behind-clients',
  'log-dir-locked',
  'log-dir-foreign-entry',
  'producer-metadata-timeout',
  'zk-snapshot-missing',
  'zk-connect-timeout',
  'protocol-version-unknown',
  'message-format-without-headers',
  'zk-acl-denies-client',
  'zk-peer-host-unresolvable',
  'metadata-version-newer-than-binaries',
  'zk-four-letter-word-not-allowed',
  'zk-client-connection-limit',
  'zk-slow-fsync',
  'zk-config-invalid',
  'client-codec-unsupported',
  'topic-replication-factor-exceeds-brokers',
  'data-dir-not-writable',
] as const

/** One of GOTCHA_IDS. */
export type GotchaId = (typeof GOTCHA_IDS)[number]

function mistake(id: GotchaId, detail?: string, subject?: string): Draft {
  const labels: Record<string, string> = { id }
  if (detail !== undefined) labels.detail = detail
  if (subject !== undefined) labels.subject = subject
  return { name: 'setup.mistake', labels }
}

/**
 * What the first four bytes of a Kafka frame say when they were not a Kafka size: a TLS record header
 * (0x16 handshake / 0x15 alert, version 0x03xx) or the start of an HTTP request or response ("GET ",
 * "POST", "HTTP"). A broker or client reads those bytes as a request size, hence the huge sizes.
 */
export function foreignProtocol(size: number): 'tls' | 'http' | undefined {
  if (!Number.isInteger(size) || size < 0 || size > 0xffffffff) return undefined
  const b0 = Math.floor(size / 0x1000000)
  const b1 = Math.floor(size / 0x10000) % 0x100
  if ((b0 === 0x16 || b0 === 0x15) && b1 === 0x03) return 'tls'
  const text = String.fromCharCode(b0, b1, Math.floor(size / 0x100) % 0x100, size % 0x100)
  return /^(?:GET |POST|PUT |HEAD|DELE|OPTI|PATC|HTTP|CONN|PRI )$/.test(text) ? 'http' : undefined
}

/** The Java release a class-file major version needs (52 → 8, 55 → 11, 61 → 17). */
export function javaOfClassVersion(major: number): number {
  return major - 44
}

/** The rows; numbered G1… so comments and tests can name them. */
export const GOTCHA_MATCHERS: readonly Matcher[] = [
  // G1. clients 0.10-4.x NetworkReceive "Invalid receive (size = N larger than M)" (and "(size = N)" for a
  //     negative size), thrown on the broker's Selector for the connection ("Unexpected error from /ip;
  //     closing connection"): the first four bytes were no Kafka size. 0x1603xxxx is a TLS ClientHello (a
  //     TLS client on a PLAINTEXT listener), "GET " = 1195725856 an HTTP client (a browser, a health
  //     check); any other size a request larger than socket.request.max.bytes.
  {
    literals: ['Invalid receive (size = '],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Invalid receive \(size = (-?\d+)(?: larger than (\d+))?/,
    build: (m) => {
      const size = Number(m[1])
      const kind = foreignProtocol(size)
      if (kind === 'tls') return mistake('tls-client-on-plaintext-listener', m[1])
      if (kind === 'http') return mistake('http-client-on-kafka-listener', m[1])
      return mistake('request-larger-than-socket-limit', m[1], m[2])
    },
  },
  // G2. clients 0.10-4.x SaslServerAuthenticator "Unexpected Kafka request of type METADATA during SASL
  //     handshake." (IllegalSaslStateException, in the broker's "Failed authentication with /ip (…)"): the
  //     client sent Kafka requests to a SASL listener without authenticating (security.protocol PLAINTEXT).
  {
    literals: ['during SASL handshake'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Unexpected Kafka request of type (\w+) during SASL handshake/,
    build: (m) => mistake('plaintext-client-on-sasl-listener', m[1]),
  },
  // G3. clients 1.0-4.x SaslClientAuthenticator "Client SASL mechanism 'PLAIN' not enabled in the server,
  //     enabled mechanisms are [SCRAM-SHA-512]" and the broker's SaslServerAuthenticator "Unsupported SASL
  //     mechanism PLAIN" (UnsupportedSaslMechanismException); the error code UNSUPPORTED_SASL_MECHANISM (33) in the
  //     clients' words: Kafka's Errors and sarama's ErrUnsupportedSASLMechanism "The broker does not support the
  //     requested SASL mechanism", librdkafka's rd_kafka_err2str "Broker: Unsupported SASL mechanism".
  {
    literals: ['not enabled in the server, enabled mechanisms are', 'Unsupported SASL mechanism ', 'does not support the requested SASL mechanism', 'Broker: Unsupported SASL mechanism'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Client SASL mechanism '([^']+)' not enabled in the server, enabled mechanisms are (\[[^\]]*\])|UnsupportedSaslMechanismException: Unsupported SASL mechanism (\S+)|\(Unsupported SASL mechanism ([^)\s]+)\)|The broker does not support the requested SASL mechanism|Broker: Unsupported SASL mechanism/,
    build: (m) => mistake('sasl-mechanism-not-enabled', m[1] ?? m[3] ?? m[4], m[2]),
  },
  // G4. Kafka 2.8-3.6 KafkaRaftServer "No `meta.properties` found in /d (have you run `kafka-storage.sh` to
  //     format the directory?)"; 3.7-4.x MetaPropertiesEnsemble.verify "No readable meta.properties files
  //     found.": a KRaft node whose log dirs were never formatted (or were emptied, a fresh volume).
  {
    literals: ['have you run `kafka-storage.sh`', 'No readable meta.properties files found'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /No `meta\.properties` found in (\S+) \(have you run `kafka-storage\.sh`|No readable meta\.properties files found/,
    build: (m) => mistake('kraft-storage-not-formatted', m[1]),
  },
  // G5. Kafka 0.9-3.x KafkaServer InconsistentBrokerIdException "Configured broker.id 3 doesn't match stored
  //     broker.id 1 in meta.properties." (2.x "stored broker.id Some(1)"); 3.x KafkaRaftServer
  //     InconsistentNodeIdException "Configured node.id `1001` doesn't match stored node.id `1389' in
  //     meta.properties.": the data dir belongs to another broker.
  {
    literals: ["doesn't match stored broker.id", "doesn't match stored node.id"],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Configured (?:broker|node)\.id `?(-?\d+)`? doesn't match stored (?:broker|node)\.id [`']?(?:Some\()?(-?\d+)/,
    build: (m) => mistake('stored-node-id-mismatch', `configured ${m[1]}, stored ${m[2]}`),
  },
  // G6. Kafka 0.9-4.x SocketServer/Acceptor KafkaException "Socket server failed to bind to 0.0.0.0:9092:
  //     Address already in use." (or the OS's other reason, "Cannot assign requested address." when the
  //     listener names an address this host does not have).
  {
    literals: ['Socket server failed to bind to '],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Socket server failed to bind to (\S+): (Address already in use|Cannot assign requested address)/,
    build: (m) => mistake(m[2] === 'Address already in use' ? 'listener-port-in-use' : 'listener-address-not-local', m[1]),
  },
  // G7. Kafka 1.1-4.x KafkaConfig "requirement failed: advertised.listeners cannot use the nonroutable
  //     meta-address 0.0.0.0. Use a routable IP address." (KAFKA-4260; 3.x "advertised.listeners listener
  //     names must …" aside).
  {
    literals: ['cannot use the nonroutable meta-address'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /advertised\.listeners cannot use the nonroutable meta-address (\S+?)\./,
    build: (m) => mistake('advertised-meta-address', m[1]),
  },
  // G8. Kafka 1.1-3.x KafkaConfig "requirement failed: log.message.format.version 2.1-IV2 can only be used when
  //     inter.broker.protocol.version is set to version 2.1-IV2 or higher"; 0.10-1.0 "message.format.version X
  //     cannot be used when inter.broker.protocol.version is set to Y": the upgrade steps were taken out of order.
  {
    literals: ['can only be used when inter.broker.protocol.version', 'cannot be used when inter.broker.protocol.version'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /(?:log\.)?message\.format\.version (\S+) (?:can only be used when inter\.broker\.protocol\.version is set to version (\S+) or higher|cannot be used when inter\.broker\.protocol\.version is set to (\S+))/,
    build: (m) => mistake('message-format-above-protocol', m[1], m[2] ?? m[3]),
  },
  // G9. JDK 8-21 sun.security.util.HostnameChecker CertificateException "No subject alternative DNS name
  //     matching kafka-0 found.", "No subject alternative names matching IP address 10.0.0.5 found", "No
  //     subject alternative names present", "No name matching host found": the certificate does not name the
  //     address the client dialled (clients check it since 2.0, ssl.endpoint.identification.algorithm=https).
  {
    literals: ['No subject alternative', 'No name matching '],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /No subject alternative (?:DNS name matching (\S+) found|names matching IP address (\S+) found|names present)|CertificateException: No name matching (\S+) found/,
    build: (m) => mistake('tls-hostname-mismatch', m[1] ?? m[2] ?? m[3]),
  },
  // G10. JDK 8-21 PKIX "PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException:
  //      unable to find valid certification path to requested target": the truststore lacks the CA.
  {
    literals: ['unable to find valid certification path to requested target'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /unable to find valid certification path to requested target/,
    build: () => mistake('tls-untrusted-certificate'),
  },
  // G10b. The same in the non-Java clients' words. OpenSSL's X509 verify texts as librdkafka (rdkafka_ssl.c "Failed to
  //      verify broker certificate: self signed certificate in certificate chain"; "SSL handshake failed: …:certificate
  //      verify failed: broker certificate could not be verified, verify that ssl.ca.location is correctly configured"),
  //      Node (kafkajs: "self signed certificate in certificate chain", "unable to verify the first certificate") and
  //      Python ssl (CERTIFICATE_VERIFY_FAILED) print them; Go's crypto/x509 "x509: certificate signed by unknown
  //      authority" (sarama, franz-go). An expired certificate or a host-name mismatch fails verification too and has
  //      its own rows, so a line naming either is left to them.
  {
    literals: ['certificate verify failed', 'CERTIFICATE_VERIFY_FAILED', 'self signed certificate in certificate chain', 'self-signed certificate in certificate chain', 'unable to get local issuer certificate', 'unable to verify the first certificate', 'certificate signed by unknown authority', 'Failed to verify broker certificate'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /(self[- ]signed certificate in certificate chain|unable to get local issuer certificate|unable to verify the first certificate|certificate signed by unknown authority|certificate verify failed|CERTIFICATE_VERIFY_FAILED|Failed to verify broker certificate: [^:]{1,120})/,
    build: (m, r) => {
      const text = r.lines.slice(0, 4).join('\n')
      if (/expired|not yet valid|[Hh]ostname|host ?name mismatch|doesn't match|does not match|not valid for|IP address mismatch/.test(text)) return undefined
      const reason = /self[- ]signed certificate in certificate chain|unable to get local issuer certificate|unable to verify the first certificate|certificate signed by unknown authority/.exec(text)?.[0] ?? m[1]
      return mistake('tls-untrusted-certificate', reason)
    },
  },
  // G11. clients 0.9-2.x KafkaProducer RecordTooLargeException "The message is N bytes when serialized which is
  //      larger than the maximum request size you have configured with the max.request.size configuration.";
  //      3.x-4.x "… which is larger than 1048576, which is the value of the max.request.size configuration.".
  {
    literals: ['bytes when serialized which is larger than'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /The message is (\d+) bytes when serialized which is larger than (?:the maximum request size you have configured with the max\.request\.size configuration|(\d+), which is the value of the max\.request\.size configuration)/,
    build: (m) => mistake('producer-record-over-max-request-size', m[1], m[2]),
  },
  // G12. clients 0.9-4.x Errors.MESSAGE_TOO_LARGE "The request included a message larger than the max message
  //      size the server will accept." (RecordTooLargeException from a produce response): the broker's
  //      message.max.bytes / the topic's max.message.bytes is below the batch the producer sent.
  {
    literals: ['larger than the max message size the server will accept'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /The request included a message larger than the max message size the server will accept/,
    build: () => mistake('broker-rejects-oversized-message'),
  },
  // G13. clients 0.9-4.x Errors.INVALID_SESSION_TIMEOUT "The session timeout is not within the range allowed
  //      by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms).".
  {
    literals: ['The session timeout is not within the range allowed by the broker'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /The session timeout is not within the range allowed by the broker/,
    build: () => mistake('session-timeout-out-of-range'),
  },
  // G14. clients 0.10-4.x CommitFailedException "Commit cannot be completed since the group has already
  //      rebalanced and assigned the partitions to another member. This means that the time between subsequent
  //      calls to poll() was longer than the configured max.poll.interval.ms, …".
  {
    literals: ['Commit cannot be completed since the group has already rebalanced'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Commit cannot be completed since the group has already rebalanced/,
    build: (_m, r) => mistake('commit-after-rebalance', undefined, /groupId=([^\]\s,]+)/.exec(r.header.message)?.[1]),
  },
  // G15. clients 0.9-3.x NetworkClient "Error while fetching metadata with correlation id 5 :
  //      {orders=UNKNOWN_TOPIC_OR_PARTITION}"; 3.7-4.x "The metadata response from the cluster reported a
  //      recoverable issue with correlation id 9 : {orders=UNKNOWN_TOPIC_OR_PARTITION}": one signal per
  //      topic and error (LEADER_NOT_AVAILABLE while a topic is auto-created is routine; rules tell them apart).
  {
    literals: ['Error while fetching metadata with correlation id', 'reported a recoverable issue with correlation id'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /(?:Error while fetching metadata|The metadata response from the cluster reported a recoverable issue) with correlation id \d+ : \{(.{1,2000}?)\}/,
    build: (m) => {
      const out: Draft[] = []
      for (const pair of m[1].split(', ')) {
        const at = pair.lastIndexOf('=')
        if (at > 0) out.push(mistake('metadata-topic-error', pair.slice(at + 1), pair.slice(0, at)))
      }
      return out
    },
  },
  // G16. Kafka 1.0-4.x authorizer (SimpleAclAuthorizer, AclAuthorizer, StandardAuthorizer) on the
  //      kafka.authorizer.logger: "Principal = User:ANONYMOUS is Denied Operation = Describe from host = 10.0.0.5
  //      on resource = Topic:LITERAL:orders" (0.10-1.x "… on resource = Topic:orders").
  {
    literals: [' is Denied Operation = '],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /Principal = (\S+) is Denied Operation = (\w+) from host = (\S+) on resource = (\S+)/,
    build: (m) => mistake('acl-denied', m[1], `${m[2]} ${m[4]}`),
  },
  // G17. JDK 7-21 on Windows: sun.nio.fs.WindowsException frames in a broker's stack ("The process cannot access
  //      the file because it is being used by another process", AccessDeniedException on a rename): Windows
  //      cannot rename or delete a file that is still mapped, so segment deletion and topic deletion fail and
  //      take the log dir offline (KAFKA-1194).
  //      Kafka 1.1-4.x LogDirFailureChannel "Error while renaming dir for t-p in log dir C:\tmp\kafka-logs" (and "Error
  //      while deleting segments for t-p in dir …") names the Windows log dir itself when the report cuts the stack.
  {
    literals: ['sun.nio.fs.WindowsException', 'Error while renaming dir for', 'Error while deleting segments for'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /at (?:java\.base\/)?sun\.nio\.fs\.WindowsException\.\w+|Error while (?:renaming dir|deleting segments) for \S+ in (?:log )?dir [A-Za-z]:\\/,
    build: (_m, r) => mistake('log-dir-on-windows', /in (?:log )?dir ([A-Za-z]:\\[^\s(]*)/.exec(r.header.message)?.[1]),
  },
  // G18. ZooKeeper 3.4-3.9 ClientCnxnSocket "Packet len4194352 is out of range!" (3.4) / "Packet len 4194352 is
  //      out of range!" (3.5+): a znode or a response (a getChildren over many topics) is larger than
  //      jute.maxbuffer (4 MB by default), so the ZooKeeper client drops the connection.
  {
    literals: ['is out of range!'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Packet len ?(\d+) is out of range!/,
    // A length that spells "HTTP" or a TLS header is a ZooKeeper client dialling another service's port
    // (yahoo/CMAK#885: 1213486160 from an HTTP server on 8081), not an oversized packet.
    build: (m) => (foreignProtocol(Number(m[1])) ? undefined : mistake('zk-packet-over-jute-maxbuffer', m[1])),
  },
  // G19. ZooKeeper 3.5-3.9 server NettyServerCnxn/NIOServerCnxn "The list of known four letter word commands is :
  //      …" aside, "ruok is not executed because it is not in the whitelist." (3.5.3+ 4lw.commands.whitelist): a
  //      health check or monitor using a four-letter word the server does not allow.
  {
    literals: ['is not executed because it is not in the whitelist'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /(\w{4}) is not executed because it is not in the whitelist/,
    build: (m) => mistake('zk-four-letter-word-not-allowed', m[1]),
  },
  // G20. clients 1.0-4.x SaslClientAuthenticator IllegalSaslStateException "Unexpected handshake request with client
  //      mechanism PLAIN, enabled mechanisms are []" (the broker answered ILLEGAL_SASL_STATE: the listener does
  //      no SASL), in "Connection to node -1 (…) failed authentication due to: …": a SASL client on a
  //      PLAINTEXT or SSL listener.
  {
    literals: ['Unexpected handshake request with client mechanism'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Unexpected handshake request with client mechanism ([^\s,]+)(?:, enabled mechanisms are (\[[^\]]*\]))?/,
    build: (m) => mistake('sasl-client-on-plaintext-listener', m[1], m[2]),
  },
  // G21. clients 2.0-4.x NetworkClient WARN "Error connecting to node kafka-1:9092 (id: 1 rack: null)" with
  //      "java.net.UnknownHostException: kafka-1" under it: the host a broker advertises (or, from the KRaft
  //      RaftManager, a controller.quorum.voters host) does not resolve where this client runs.
  {
    literals: ['Error connecting to node '],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Error connecting to node (\S+?):(\d+) \(id: (-?\d+) rack: [^)]*\)/,
    build: (m, r) => {
      const unknown = r.lines.slice(1, 4).some((l) => l.includes('java.net.UnknownHostException'))
      if (!unknown) return undefined
      const voter = /\[RaftManager /.test(r.header.message)
      return mistake(voter ? 'quorum-voter-host-unresolvable' : 'broker-host-unresolvable', `${m[1]}:${m[2]}`, m[3])
    },
  },
  // G22. clients 2.1-4.x ClientUtils WARN "Couldn't resolve server kafka:9092 from bootstrap.servers as DNS
  //      resolution failed for kafka" (2.6+ also "… DNS resolution of the canonical hostname H failed for kafka"):
  //      a bootstrap address that does not resolve (a typo, a container name outside its network, a headless
  //      service without ready pods).
  {
    literals: ["Couldn't resolve server "],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /Couldn't resolve server (\S+) from bootstrap\.servers as DNS resolution (?:of the canonical hostname \S+ )?failed for (\S+)/,
    build: (m) => mistake('bootstrap-host-unresolvable', m[1], m[2]),
  },
  // G23. Kafka 0.8-4.x LogManager.lockLogDirs KafkaException "Failed to acquire lock on file .lock in /d. A Kafka
  //      instance in another process or thread is using this directory.": a second broker (or a tool started in the
  //      container) on the same log dir, or a file system whose locks do not work (NFS).
  {
    literals: ['Failed to acquire lock on file .lock in '],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Failed to acquire lock on file \.lock in (\S+?)\. A Kafka instance in another process or thread is using this directory/,
    build: (m) => mistake('log-dir-locked', m[1]),
  },
  // G24. Kafka 0.10-4.x Log/LocalLog.parseTopicPartitionName KafkaException "Found directory /d/lost+found, 'lost+found'
  //      is not in the form of topic-partition or topic-partition.uniqueId-delete (if marked for deletion)." (0.10.0
  //      "… is not in the form of topic-partition"): something that is no partition sits in a log dir (an ext4
  //      volume's lost+found, a data dir mounted one level too high).
  {
    literals: ['is not in the form of topic-partition'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Found directory (\S+), '([^']*)' is not in the form of topic-partition/,
    build: (m) => mistake('log-dir-foreign-entry', m[2], m[1].replace(/,$/, '')),
  },
  // G25. ZooKeeper 3.4-3.9 server ZooKeeperServer "Refusing session request for client /10.0.0.5:47054 as it has seen
  //      zxid 0x134 our last zxid is 0x3b client must try another server": the client (a broker) has seen newer data
  //      than this server holds, so the server's data was lost or rolled back (no persistent volume, a wiped dataDir).
  {
    literals: ['Refusing session request for client '],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /Refusing session request for client \/?(\S+) as it has seen zxid (0x[0-9a-fA-F]+) our last zxid is (0x[0-9a-fA-F]+)/,
    build: (m) => mistake('zk-server-behind-clients', `${m[2]} > ${m[3]}`, m[1]),
  },
  // G26. clients 2.2-4.x KafkaProducer.waitOnMetadata TimeoutException "Topic orders not present in metadata after 60000
  //      ms." (0.9-2.1 "Failed to update metadata after 60000 ms."): send() waited max.block.ms for the topic's metadata
  //      and got none: the topic does not exist and is not auto-created, no broker answers, or the client may not
  //      see it.
  {
    literals: ['not present in metadata after', 'Failed to update metadata after'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Topic (\S+) not present in metadata after (\d+) ms|Failed to update metadata after (\d+) ms/,
    build: (m) => mistake('producer-metadata-timeout', m[2] ?? m[3], m[1]),
  },
  // G27. ZooKeeper 3.5-3.9 FileTxnSnapLog.restore "No snapshot found, but there are log entries. Something is broken!"
  //      (IOException at start-up): a dataDir written by 3.4 without a snapshot, read by 3.5+ (ZOOKEEPER-3056;
  //      snapshot.trust.empty=true is the documented escape), or a snapshot deleted by hand.
  {
    literals: ['No snapshot found, but there are log entries'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /No snapshot found, but there are log entries/,
    build: () => mistake('zk-snapshot-missing'),
  },
  // G28. Kafka 2.0-3.x ZooKeeperClient ZooKeeperClientTimeoutException "Timed out waiting for connection while in state:
  //      CONNECTING" (zookeeper.connection.timeout.ms passed without a session): at start-up the broker (or a
  //      --zookeeper tool) never reached ZooKeeper.
  {
    literals: ['Timed out waiting for connection while in state: '],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /ZooKeeperClientTimeoutException: Timed out waiting for connection while in state: (\w+)/,
    build: (m) => mistake('zk-connect-timeout', m[1]),
  },
  // G29. Kafka 1.0-2.x ApiVersion "Version `2.1` is not a valid version"; 3.x-4.x MetadataVersion "Version 3.9-IV9 is not a
  //      valid version": inter.broker.protocol.version / log.message.format.version (or a metadata version) names a
  //      release these binaries do not know, usually newer than they are (a version bumped before the upgrade).
  {
    literals: ['is not a valid version'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /IllegalArgumentException: Version `?([^`\s]+)`? is not a valid version/,
    build: (m) => mistake('protocol-version-unknown', m[1]),
  },
  // G30. clients 0.11-4.x MemoryRecordsBuilder "Magic v0 does not support record headers" (or v1), thrown on the broker
  //      while it converts a produce batch down to the topic's message format: the topic (or log.message.format.version)
  //      is below 0.11 (KIP-82) and a producer sends headers.
  {
    literals: ['does not support record headers'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Magic v(\d) does not support record headers/,
    build: (m, r) => mistake('message-format-without-headers', `v${m[1]}`, /on partition (\S+)/.exec(r.header.message)?.[1]),
  },
  // G31. ZooKeeper 3.4-3.9 KeeperException$NoAuthException "KeeperErrorCode = NoAuth for /consumers" in a broker's or a
  //      tool's stack: the znode carries ACLs (zookeeper.set.acl, or another identity created it) that this ZooKeeper
  //      client is not authenticated for.
  {
    literals: ['KeeperErrorCode = NoAuth'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /KeeperErrorCode = NoAuth(?: for (\S+))?/,
    build: (m) => mistake('zk-acl-denies-client', m[1]),
  },
  // G32. ZooKeeper 3.4-3.9 server QuorumCnxManager WARN "Cannot open channel to 2 at election address pzoo-1.pzoo:3888"
  //      with "java.net.UnknownHostException: pzoo-1.pzoo" under it: an ensemble member's host name does not resolve
  //      (a Kubernetes headless service that publishes no address for pods that are not ready yet).
  {
    literals: ['at election address '],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Cannot open channel to (\d+) at election address (\S+)/,
    build: (m, r) => (r.lines.slice(1, 4).some((l) => l.includes('java.net.UnknownHostException')) ? mistake('zk-peer-host-unresolvable', m[2], m[1]) : undefined),
  },
  // G33. Kafka 3.3-3.9 FeatureControlManager.replay "Tried to apply FeatureLevelRecord FeatureLevelRecord(name='metadata.version',
  //      featureLevel=20), but this controller only supports versions 1-19"; 3.5-3.6 MetadataVersion "No MetadataVersion with
  //      metadata version 11" (3.7+ "… with feature level 11"): the metadata log was written at a metadata.version
  //      newer than these binaries, i.e. binaries downgraded after the version was raised.
  {
    literals: ['Tried to apply FeatureLevelRecord', 'No MetadataVersion with '],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Tried to apply FeatureLevelRecord FeatureLevelRecord\(name='metadata\.version', featureLevel=(\d+)\), but this controller only supports versions (\S+)|No MetadataVersion with (?:metadata version|feature level) (\d+)/,
    build: (m) => mistake('metadata-version-newer-than-binaries', m[1] ?? m[3], m[2]),
  },
  // G34. ZooKeeper 3.4 NIOServerCnxnFactory WARN "Too many connections from /172.17.42.1 - max is 60"; 3.5-3.9 "Error
  //      accepting new connection: Too many connections from /10.0.0.7 - max is 60" (NIOServerCnxnFactory via RateLogger,
  //      NettyServerCnxnFactory): one client address holds maxClientCnxns connections (60 by default) and the server
  //      refuses the next. A client that opens sessions and never closes them (a leak), or many clients behind one NAT.
  {
    literals: ['Too many connections from '],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /Too many connections from \/?(\S+) - max is (\d+)/,
    build: (m) => mistake('zk-client-connection-limit', m[2], m[1]),
  },
  // G35. ZooKeeper 3.4-3.9 FileTxnLog WARN "fsync-ing the write ahead log in SyncThread:2 took 3932ms which will adversely
  //      effect operation latency." (3.5+ adds "File size is N bytes"): one fsync of the transaction log took longer than
  //      fsync.warningthresholdms (1 s). Every write waits for it; sessions time out when it lasts.
  {
    literals: ['fsync-ing the write ahead log in '],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /fsync-ing the write ahead log in (\S+) took (\d+)ms/,
    build: (m) => mistake('zk-slow-fsync', m[2], m[1]),
  },
  // G36. ZooKeeper 3.4-3.5 NIOServerCnxn WARN "Exception causing close of session 0x2000008b09600fa: Len error 2163858"
  //      (3.6+ "Closing connection … Len error N", IOException "Len error N" from ServerCnxn.checkRequestSizeWhenReceivingMessage):
  //      a client sent a request larger than the server's jute.maxbuffer, so the server drops its connection — the
  //      server side of G18.
  {
    literals: ['Len error '],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Len error (?:is )?(\d+)/,
    build: (m) => (foreignProtocol(Number(m[1])) ? undefined : mistake('zk-packet-over-jute-maxbuffer', m[1])),
  },
  // G37. clients 0.9-4.x TopicAuthorizationException "Not authorized to access topics: [orders]" (a stack's exception or
  //      its "Caused by:"), librdkafka's rd_kafka_err2str "Broker: Topic authorization failed": the same
  //      TOPIC_AUTHORIZATION_FAILED as G15's metadata form, from a request that raised it.
  {
    literals: ['Not authorized to access topics: ', 'Broker: Topic authorization failed'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /TopicAuthorizationException: Not authorized to access topics: \[([^\]]{0,300})\]|Broker: Topic authorization failed/,
    build: (m) => mistake('metadata-topic-error', 'TOPIC_AUTHORIZATION_FAILED', m[1] !== undefined && /^[\w.,\s-]+$/.test(m[1]) && !/\s\w+\s/.test(m[1]) ? m[1] : undefined),
  },
  // G38. ZooKeeper 3.4-3.9 QuorumPeerMain ERROR "Invalid config, exiting abnormally" with QuorumPeerConfig$ConfigException
  //      "Error processing <file>" and the reason under it (a value that is no number, "… file is missing", "standaloneEnabled
  //      = false then number of participants should be >2"): the server refuses its configuration and exits.
  {
    literals: ['Invalid config, exiting abnormally'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Invalid config, exiting abnormally/,
    build: (_m, r) => {
      const cause = r.lines.map((l) => /^\s*Caused by: [\w.$]+: (.{1,200})$/.exec(l)?.[1]).find((c) => c !== undefined)
      const file = r.lines.map((l) => /ConfigException: Error processing (\S+)/.exec(l)?.[1]).find((f) => f !== undefined)
      return mistake('zk-config-invalid', cause?.trim(), file)
    },
  },
  // G39. librdkafka 1.x-2.x rdkafka_msgset_reader.c "Decompression (codec 0x4) of message at 22964260 of 117 bytes failed:
  //      Local: Not implemented" (0.9-0.11: "… with unsupported compression codec 0x1: message ignored"): the consumer's
  //      librdkafka was built without that codec (0x1 gzip/zlib, 0x2 snappy, 0x3 lz4, 0x4 zstd), so it cannot read batches
  //      compressed with it.
  {
    literals: ['of message at ', 'unsupported compression codec 0x'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Decompression \(codec 0x(\d)\) of message at \d+ of \d+ bytes failed: Local: Not implemented|unsupported compression codec 0x(\d): message ignored/,
    build: (m) => mistake('client-codec-unsupported', CODECS[m[1] ?? m[2]] ?? `codec 0x${m[1] ?? m[2]}`),
  },
  // G40. Kafka 2.x-3.x ZkAdminManager/AdminManager INFO "Error processing create topic request CreatableTopic(name='sales',
  //      numPartitions=10, replicationFactor=3, …)" with InvalidReplicationFactorException "Replication factor: 3 larger than
  //      available brokers: 1.": a topic requested with more replicas than the cluster has brokers (an internal topic of the
  //      broker itself, __consumer_offsets, is F24's offsets rule).
  {
    literals: ['Error processing create topic request CreatableTopic(name='],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Error processing create topic request CreatableTopic\(name='([^']+)'/,
    build: (m, r) => {
      if (m[1].startsWith('__')) return undefined
      const rf = r.lines.map((l) => /Replication factor: (\d+) larger than available brokers: (\d+)/.exec(l)).find((x) => x !== null)
      return rf ? mistake('topic-replication-factor-exceeds-brokers', `${rf[1]} replicas, ${rf[2]} broker(s)`, m[1]) : undefined
    },
  },
  // G41. Confluent cp-kafka / cp-zookeeper images' preflight check (dub): "Command [/usr/local/bin/dub path /var/lib/kafka/data
  //      writable] FAILED !" — the mounted data directory is not writable by the image's user (uid 1000 appuser), so the
  //      broker never starts.
  {
    literals: ['/usr/local/bin/dub path '],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /Command \[\/usr\/local\/bin\/dub path (\S+) writable\] FAILED/,
    build: (m) => mistake('data-dir-not-writable', m[1]),
  },
]

/** librdkafka's compression codec numbers (rd_kafka_compression_t). */
const CODECS: Record<string, string> = { '1': 'gzip', '2': 'snappy', '3': 'lz4', '4': 'zstd' }
