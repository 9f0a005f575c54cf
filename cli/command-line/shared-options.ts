import type { OptionSpec } from './option-spec.js'

/**
 * The options several commands take, defined once so `--rules`, `--since` or `--replay` read, parse
 * and complete the same way wherever they appear. A command adds its own beside them.
 */

/** The rule set the store-backed commands evaluate. */
export const RULES = { flags: '--rules <dir>', description: 'rule files (*.rules): a directory or one file', default: 'rules', complete: 'file' } as const satisfies OptionSpec

/** Rule files or directories given one by one (test, console). */
export const RULES_REPEATED = { flags: '--rules <path>', description: 'rule file or directory (repeatable; default: the rule pack)', repeat: true, complete: 'file' } as const satisfies OptionSpec

/** How far back a diagnosis or backtest reads. */
export const SINCE = { flags: '--since <duration>', description: 'how far back to read, e.g. 1h, 30d' } as const satisfies OptionSpec

/** Recorded inputs read into the store first: logs, incident directories, .jsonl recordings. */
export const REPLAY_PATHS = {
  flags: '--replay <paths>',
  description: 'read these files or directories first (comma-separated or repeated): server.log, gc.log, kafkaServer.out, .gz, .zip and .tar.gz bundles, incident directories, .jsonl recordings',
  repeat: true,
  complete: 'file',
} as const satisfies OptionSpec

/** The recorded incident the terminal bot runs over (console, digest); --no-replay starts empty. */
export const REPLAY_INCIDENT = {
  flags: '--replay <dir>',
  description: 'the incident to load (default: test/incidents/seed-000-stw-session-expiry)',
  negatable: 'start with an empty store',
  complete: 'dir',
} as const satisfies OptionSpec

/** Per-path brokers for logs that do not name theirs. */
export const BROKER_PATHS = {
  flags: '--broker <id=path>',
  description: "read PATH as broker ID's logs (repeatable); otherwise a directory named broker-3/, kafka-3/ or kafka-broker-3/ names its broker",
  repeat: true,
} as const satisfies OptionSpec

/** Zone of timestamps written without an offset. */
export const TZ = {
  flags: '--tz <zone>',
  description: 'zone of timestamps written without an offset ("+08:00", "Europe/Berlin"); default: the offset another file of the set carries, else UTC',
} as const satisfies OptionSpec

/** The cluster a broker or a log belongs to. */
export const CLUSTER = { flags: '--cluster <name>', description: 'the cluster, when the store knows several' } as const satisfies OptionSpec

/** `--store`: a replay written into the configured store (REDIS_URL, REDIS_CLUSTER_NODES) instead of memory. */
export const REPLAY_INTO_STORE = { flags: '--store', description: 'replay into the configured store (REDIS_URL or REDIS_CLUSTER_NODES) instead of memory; what it creates there expires after 24 h' } as const satisfies OptionSpec

/** Machine-readable output instead of text. */
export const JSON_OUTPUT = { flags: '--json', description: 'print JSON instead of text' } as const satisfies OptionSpec

/** More detail in the text output. */
export const VERBOSE = { flags: '-v, --verbose', description: 'print everything, not only the summary' } as const satisfies OptionSpec

/** The bot's configuration file (console, digest). */
export const BOT_CONFIG = { flags: '--config <file>', description: 'bot configuration (kafka-why.yaml)', complete: 'file' } as const satisfies OptionSpec

/** The clock of the terminal bot, so a recorded incident is seen as it happened. */
export const NOW = { flags: '--now <time>', description: 'act as if it were this ISO time' } as const satisfies OptionSpec

/** Time between evaluations while replaying. */
export const STEP = { flags: '--step <duration>', description: 'time between evaluations' } as const satisfies OptionSpec

/** Keep a lab cluster's directory (configs, data, logs) after it stops. */
export const KEEP = { flags: '--keep', description: 'keep the working directory (configs, data, logs) after it stops' } as const satisfies OptionSpec

/** `--format` of the commands whose findings go to CI: text, JSON and the annotation formats. */
export const FINDINGS_FORMAT = {
  flags: '--format <format>',
  description: 'text; json: every finding with file, line, col; github: GitHub Actions annotations; sarif: SARIF 2.1.0; checkstyle: Checkstyle XML',
  choices: ['text', 'json', 'github', 'sarif', 'checkstyle'],
  default: 'text',
} as const satisfies OptionSpec

/** The level of the long-running commands' logs (serve, agent). */
export const LOG_LEVEL = {
  flags: '--log-level <level>',
  description: 'trace, debug, info, warn, error, fatal or silent (default: KAFKA_WHY_LOG_LEVEL, else info)',
} as const satisfies OptionSpec
