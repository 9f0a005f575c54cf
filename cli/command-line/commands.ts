import type { CommandSpec, OptionSpecs } from './option-spec.js'
import {
  BOT_CONFIG,
  BROKER_PATHS,
  CLUSTER,
  FINDINGS_FORMAT,
  JSON_OUTPUT,
  KEEP,
  LOG_LEVEL,
  NOW,
  REPLAY_INCIDENT,
  REPLAY_INTO_STORE,
  REPLAY_PATHS,
  RULES,
  RULES_REPEATED,
  SINCE,
  STEP,
  TZ,
  VERBOSE,
} from './shared-options.js'

/**
 * Every kafka-why command: its arguments, options and help, as data. Only this file and
 * shared-options.ts say what the command line accepts; the bodies in cli/commands/ are loaded when
 * their command runs and receive typed values (CommandInput<typeof WHY_OPTIONS>).
 */

/** `why`: the ranked diagnosis of one broker. */
export const WHY_OPTIONS = {
  since: { ...SINCE, description: 'how far back to look (default 1h; with --replay, the whole recording)' },
  at: { flags: '--at <time>', description: 'diagnose as of TIME (ISO-8601 with offset, or epoch ms); default now, or with --replay the last replayed signal' },
  replay: { ...REPLAY_PATHS, description: `${REPLAY_PATHS.description}. Records that name no broker are read as <broker>` },
  broker: BROKER_PATHS,
  tz: TZ,
  rules: RULES,
  cluster: { ...CLUSTER, description: "the broker's cluster, when the store knows several" },
  group: { flags: '--group <group>', description: "a consumer group instead of a broker: its status by Burrow's rules and the ranked cause of its lag" },
  verbose: { ...VERBOSE, description: 'everything: scores, every evidence line and consequence, near-miss evidence' },
  json: { ...JSON_OUTPUT, description: 'the Diagnosis as JSON' },
  store: REPLAY_INTO_STORE,
} as const satisfies OptionSpecs

/** `replay`: alerts as they would have fired over a recording. */
export const REPLAY_OPTIONS = {
  rules: RULES,
  cluster: { ...CLUSTER, description: 'cluster for logs outside an incident directory (default "default")' },
  broker: BROKER_PATHS,
  tz: TZ,
  step: { ...STEP, description: 'tick interval while an alert is open', default: '15s' },
  lag: { flags: '--lag <duration>', description: 'evaluation lag behind the newest time, for late data', default: '15s' },
  json: { ...JSON_OUTPUT, description: 'one JSON object per alert event' },
  store: REPLAY_INTO_STORE,
} as const satisfies OptionSpecs

/** `lint`: file:line:col diagnostics for rule files. */
export const LINT_OPTIONS = {
  format: FINDINGS_FORMAT,
  retention: { flags: '--retention <duration>', description: "also report windows longer than the store's retention (DSL021), e.g. 7d" },
} as const satisfies OptionSpecs

/** `fmt`: the canonical layout of rule files. */
export const FMT_OPTIONS = {
  check: { flags: '--check', description: 'change nothing; list files that are not formatted and exit 1 if any', conflicts: ['stdout'] },
  stdout: { flags: '--stdout', description: 'print the formatted text instead of rewriting' },
  format: { flags: '--format <format>', description: 'json prints syntax diagnostics as JSON', choices: ['text', 'json'], default: 'text' },
} as const satisfies OptionSpecs

/** `test`: rule tests over recorded incidents and inline timelines. */
export const TEST_OPTIONS = {
  rules: { ...RULES_REPEATED, description: 'rule file or directory to test instead of the *.rules found in the test paths (repeatable)' },
  format: FINDINGS_FORMAT,
  junit: { flags: '--junit <file>', description: 'also write a JUnit XML report', complete: 'file' },
  verbose: { ...VERBOSE, description: 'per-rule coverage table and input notes for passing tests' },
  claims: { flags: '--claims', description: "also check every cause's claims: each passing expect re-run with each fact its rule observes removed; the claim must go (docs/rule-language.md)" },
} as const satisfies OptionSpecs

/** `ci`: a pull request's rule changes, checked and backtested. */
export const CI_OPTIONS = {
  base: { flags: '--base <ref>', description: 'the branch the pull request goes into (e.g. origin/main)', required: true },
  rules: { ...RULES, description: 'rule directory' },
  tests: { flags: '--tests <dir>', description: 'where rule tests are searched (default: the rules directory)', complete: 'dir' },
  since: { ...SINCE, description: 'history read from the store (REDIS_URL or REDIS_CLUSTER_NODES) for the backtest (default 30d)', conflicts: ['replay'] },
  replay: { ...REPLAY_PATHS, description: 'backtest over recorded incidents / logs instead of the store (repeatable)' },
  step: { ...STEP, description: 'time between evaluations in the backtest (default 1m; 15s with --replay)' },
  window: { flags: '--window <duration>', description: 'history read from the store at a time', default: '6h' },
  format: { flags: '--format <format>', description: 'text, markdown (a pull-request comment) or json', choices: ['text', 'markdown', 'json'], default: 'text' },
  output: { flags: '--output <file>', description: 'write the report to FILE instead of standard output', complete: 'file' },
  failOnNewCritical: { flags: '--fail-on-new-critical', description: 'exit 1 when the change would raise a critical alert the base did not' },
} as const satisfies OptionSpecs

/** `corpus`: top-1 accuracy on the real-incident corpus. */
export const CORPUS_OPTIONS = {
  rules: RULES,
  json: { ...JSON_OUTPUT, description: 'the full report as one JSON object' },
  docs: { flags: '--docs <file>', description: 'also rewrite the generated table in FILE (e.g. docs/corpus.md)', complete: 'file' },
  recordFirstSight: {
    flags: '--record-first-sight',
    description: "write this run's verdict into every case.yaml still marked 'first_sight: pending' (once; verdicts are never rescored)",
  },
} as const satisfies OptionSpecs

/** `digest`: the daily health digest in a terminal. */
export const DIGEST_OPTIONS = {
  replay: REPLAY_INCIDENT,
  config: BOT_CONFIG,
  cluster: { ...CLUSTER, description: 'the cluster to digest (default: the first configured)' },
  now: { ...NOW, description: 'the digest covers the 24 h before this ISO time' },
  out: { flags: '--out <file>', description: 'write the chart as a PNG', complete: 'file' },
  spec: { flags: '--spec <file>', description: "write the chart's Vega-Lite spec (data included)", complete: 'file' },
} as const satisfies OptionSpecs

/** `console`: the Slack bot in a terminal. */
export const CONSOLE_OPTIONS = {
  replay: REPLAY_INCIDENT,
  config: BOT_CONFIG,
  rules: RULES_REPEATED,
  now: NOW,
  json: { ...JSON_OUTPUT, description: 'print, instead of text, the exact Slack payloads the bot would send (method, channel, text, blocks, …), one JSON object per line' },
  as: { flags: '--as <user>', description: 'speak as this Slack user (listed in allowed.users of the --config file), in an allowed channel' },
  command: { flags: '-c, --command <command>', description: 'run one command (e.g. "why 1"), print the reply and exit' },
} as const satisfies OptionSpecs

/** `serve`: adapters, engine and bot in one process. */
export const SERVE_OPTIONS = {
  config: { flags: '--config <file>', description: 'configuration (default: KAFKA_WHY_CONFIG, else ./kafka-why.yaml)', complete: 'file' },
  listen: { flags: '--listen <address>', description: '[host:]port where /healthz and /metrics answer' },
  bot: { flags: '--no-bot', description: 'do not start the Slack bot' },
  logLevel: LOG_LEVEL,
} as const satisfies OptionSpecs

/** `init`: the starter configuration. */
export const INIT_OPTIONS = {
  out: { flags: '--out <file>', description: 'where to write it', default: 'kafka-why.yaml', complete: 'file' },
  force: { flags: '--force', description: 'overwrite an existing file' },
} as const satisfies OptionSpecs

/** `agent`: host agent for one broker. */
export const AGENT_OPTIONS = {
  broker: { flags: '--broker <id>', description: "the broker's id", required: true },
  pid: { flags: '--pid <pid>', description: 'the broker process: its pid, or a pid file', required: true, complete: 'file' },
  logDirs: { flags: '--log-dirs <dirs>', description: "the broker's log dirs, comma-separated: each reading also ships the free and total bytes of the file system under each (disk.avail, disk.size), from which the engine works out the time to full", complete: 'dir' },
  cluster: { ...CLUSTER, description: "the broker's cluster", default: 'default' },
  interval: { flags: '--interval <duration>', description: 'time between readings', default: '15s' },
  once: { flags: '--once', description: 'take one reading and exit (1 when the process cannot be read or the reading not stored)' },
  print: { flags: '--print', description: 'also write each signal as a JSON line on stdout' },
  topic: { flags: '--topic <topic>', description: 'ship to this signals topic (with --bootstrap) instead of the store' },
  bootstrap: { flags: '--bootstrap <brokers>', description: "the signals topic's brokers, host:port,…" },
  logLevel: LOG_LEVEL,
} as const satisfies OptionSpecs

/** The broker release a lab cluster runs (lab/kafka-versions.ts); its jars are fetched on first use. */
const KAFKA_VERSION = { flags: '--kafka-version <version>', description: 'the Kafka release the brokers run (0.10.2.2, 1.0.2, 2.8.2, 3.6.2, 3.9.1, 4.1.1)', default: '3.9.1' } as const

/** `lab <scenario>`: a fault on real Kafka, recorded and diagnosed. */
export const LAB_OPTIONS = {
  out: { flags: '--out <dir>', description: 'record under DIR instead of test/incidents/lab-<scenario>/ (lab-<scenario>-<version>/ on another release)', complete: 'dir' },
  kafkaVersion: KAFKA_VERSION,
  keep: KEEP,
  diagnose: { flags: '--no-diagnose', description: 'record only; do not check the diagnosis' },
  live: { flags: '--live', description: 'serve and its Slack bot (posting to a local Slack stand-in) watch the cluster from before the fault; times fault → the first Slack message naming the expected cause' },
  runs: { flags: '--runs <n>', description: 'with --live: runs of the scenario, each on a fresh cluster', default: '1' },
  timeout: { flags: '--timeout <duration>', description: 'with --live: how long after the fault to wait for the message', default: '60s' },
} as const satisfies OptionSpecs

/** `lab all`: the whole scenario catalogue, one cluster at a time, and its table. */
export const LAB_ALL_OPTIONS = {
  out: { flags: '--out <dir>', description: 'record each scenario under DIR/lab-<scenario>/ instead of test/incidents/', complete: 'dir' },
  only: { flags: '--only <list>', description: 'comma-separated scenarios to run (default all)' },
} as const satisfies OptionSpecs

/** `lab cluster`: a cluster kept until Ctrl-C. */
export const LAB_CLUSTER_OPTIONS = {
  brokers: { flags: '--brokers <n>', description: 'how many brokers (1..5)', default: '1' },
  kraft: { flags: '--kraft', description: 'KRaft mode instead of ZooKeeper' },
  kafkaVersion: KAFKA_VERSION,
  sessionTimeoutMs: { flags: '--session-timeout-ms <ms>', description: "the brokers' ZooKeeper session timeout" },
  keep: KEEP,
} as const satisfies OptionSpecs

/** `lab live-latency`: fault → alert delays on a real cluster watched by serve. */
export const LAB_LATENCY_OPTIONS = {
  runs: { flags: '--runs <n>', description: 'runs per fault', default: '3' },
  faults: { flags: '--faults <list>', description: 'comma-separated faults: zk-freeze, disk-full, kill (default all)' },
  tick: { flags: '--tick <duration>', description: "serve's engine tick" },
  lag: { flags: '--lag <duration>', description: "serve's evaluation lag" },
  settle: { flags: '--settle <duration>', description: "serve's settle time" },
  build: { flags: '--build <dir>', description: 'run serve from this kafka-why checkout (to compare versions)', complete: 'dir' },
  timeout: { flags: '--timeout <duration>', description: 'how long to wait for each alert' },
  keep: KEEP,
} as const satisfies OptionSpecs

/** The benchmarks `kafka-why bench` runs, each in its own process. */
export const BENCHES: Readonly<Record<string, string>> = {
  dsl: 'parse + check a generated 5,000-rule file; ratio to JSON.parse of the same size',
  engine: 'ingest vs redis-benchmark, why p50/p99 vs the raw read, evaluation growth (needs Redis)',
  'store-ingest': 'signals/s into RedisStore vs redis-benchmark -P 64 -t zadd (needs Redis)',
  'store-hostile': 'longest Redis command (SLOWLOG) under hostile appends (new clusters, brokers, fields at their bounds, 20,000 facts) vs ordinary ones; target under 50 ms (own redis-server)',
  'store-cluster': 'appends and one-broker reads on a Redis Cluster (3 masters, 3 replicas) vs one Redis, both started for the run',
  logs: 'log pipeline lines/s and MB/s vs grep -cE over the same ~1 GB file (--size-mb N)',
  chart: 'digest chart of 3 brokers over 24 h: spec, SVG (vega) and PNG (resvg) vs JSON.stringify of the spec',
  retention: 'Redis memory per broker-day at recorded rates and over simulated days with retention (own redis-server)',
  backtest: 'kafka-why ci backtest over 30 days of a 10-broker store: time and peak RSS vs a raw read of the same keys (own redis-server)',
  'signals-validate': 'JSONL signal lines/s: hand-written check vs the zod schema, each vs JSON.parse alone',
  'alert-loop': 'alert tick CPU per broker at 50, 500 and 2,000 brokers fed recorded rates, vs the raw read of the same keys (own redis-server)',
  'consumer-lag': 'consumer-lag evaluation of 10,000 groups × 20 partitions per 30 s interval, CPU share of a core, vs the raw decode of the same offset records',
}

/** The shells `kafka-why completion` writes a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh'] as const

const EXIT_CODES_CHECK = 'Exit codes: 0 clean (warnings allowed), 1 errors found, 2 bad usage.'

/** The commands in the order `kafka-why --help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'why',
    summary: 'ranked diagnosis of one broker',
    description: `Prints the ranked diagnosis of one broker: causes with their evidence timelines, near misses, and what
is abnormal when no rule matched. Reads Redis when REDIS_URL is set (a Redis Cluster with
REDIS_CLUSTER_NODES), else the embedded store.`,
    arguments: [{ name: 'broker', description: '3 or broker-3; with --replay it may be left out when the logs hold one broker' }],
    options: WHY_OPTIONS,
    helpAfter: 'A directory named broker-3/, kafka-3/ or kafka-broker-3/ holds broker 3\'s logs.\nExit codes: 0 diagnosed, 1 no data for that broker (or the store is unreachable), 2 bad usage.',
    load: async () => (await import('../commands/why.js')).execute,
  },
  {
    name: 'replay',
    summary: 'ingest recorded signals or logs and print alerts as they would have fired',
    description: `Ingests recorded signals (.jsonl), raw broker/GC/client logs and incident directories into the store
(Redis when REDIS_URL is set, a Redis Cluster with REDIS_CLUSTER_NODES, else the embedded store), then
steps through the recording's time the
way the streaming engine would and prints each alert as it would have fired, updated and resolved.`,
    arguments: [{ name: 'paths', description: 'files and directories to read', variadic: true, complete: 'file' }],
    options: REPLAY_OPTIONS,
    load: async () => (await import('../commands/replay.js')).execute,
  },
  {
    name: 'lint',
    summary: 'check rule files; file:line:col diagnostics',
    description: 'Checks rule files: every lexer, parser and semantic problem, so CI fails before a bad rule reaches the bot.',
    arguments: [{ name: 'paths', description: 'rule files or directories searched for *.rules (default rules/)', variadic: true, complete: 'file' }],
    options: LINT_OPTIONS,
    helpAfter: EXIT_CODES_CHECK,
    load: async () => (await import('../commands/lint.js')).execute,
  },
  {
    name: 'fmt',
    summary: 'print or rewrite rule files in the canonical layout',
    description: 'Rewrites rule files in the canonical layout, so reviews see meaning rather than spacing.',
    arguments: [{ name: 'paths', description: 'rule files or directories searched for *.rules (default rules/)', variadic: true, complete: 'file' }],
    options: FMT_OPTIONS,
    helpAfter: 'Files with syntax errors are left unchanged and reported.\nExit codes: 0 done (or already formatted), 1 a file is not formatted under --check or has syntax errors, 2 bad usage.',
    load: async () => (await import('../commands/fmt.js')).execute,
  },
  {
    name: 'test',
    summary: 'run rule tests against recorded incidents and inline timelines',
    description: `Runs rule tests (YAML files with a top-level \`tests:\`; directories are searched, default rules/).
Rules under test are the *.rules files found in the same paths (default rules/); --rules overrides.`,
    arguments: [{ name: 'paths', description: 'test files or directories', variadic: true, complete: 'file' }],
    options: TEST_OPTIONS,
    helpAfter: 'Exit codes: 0 all passed, 1 failures, 2 bad usage.',
    load: async () => (await import('../commands/test.js')).execute,
  },
  {
    name: 'ci',
    summary: 'lint, format-check, test and backtest the rule changes of a pull request',
    description: `Checks a pull request's rule changes: the rule and rule-test files changed since the merge base with
REF (git, renames followed) are linted and format-checked, the rule tests that touch a changed rule
run, and the base and head versions of every changed rule are backtested over the same history —
the team's store (REDIS_URL or REDIS_CLUSTER_NODES, the last --since) or recorded incidents (--replay) — to show which
alerts would newly fire, stop firing or change severity.`,
    options: CI_OPTIONS,
    helpAfter: `Exit codes: 0 checks passed (backtest differences are information), 1 lint, fmt or a test failed
(or --fail-on-new-critical and a new critical alert), 2 bad usage or git problem.`,
    load: async () => (await import('../commands/ci.js')).execute,
  },
  {
    name: 'corpus',
    summary: 'top-1 accuracy of the rules on the real-incident corpus',
    description: `Replays every case of the real-incident corpus (each case directory has case.yaml, incident.yaml,
source.md and the published log lines) through the engine, takes the top cause for the case's broker
and compares it with the expected rule.`,
    arguments: [{ name: 'dir', description: 'the corpus (default test/corpus/)', complete: 'dir' }],
    options: CORPUS_OPTIONS,
    helpAfter: 'Exit codes: 0 ran (whatever the accuracy), 1 a case could not be loaded, 2 bad usage.',
    load: async () => (await import('../commands/corpus.js')).execute,
  },
  {
    name: 'digest',
    summary: 'build the daily health digest',
    description: `Prints the daily health digest (the 24 h before --now) as the bot would post it, writes its chart
as a PNG with --out and the chart's Vega-Lite spec (data included) with --spec.`,
    options: DIGEST_OPTIONS,
    load: async () => (await import('../commands/digest.js')).execute,
  },
  {
    name: 'console',
    summary: 'the Slack bot in a terminal, over the embedded store',
    description: `The Slack bot in a terminal: type the same commands as after /kafka (why 1, status, help, …).
Buttons are numbered; \`click <n>\` presses one.`,
    options: CONSOLE_OPTIONS,
    helpAfter: 'With --as, changing commands and admin flows can be tried as that user.',
    load: async () => (await import('../commands/console.js')).execute,
  },
  {
    name: 'serve',
    summary: 'adapters, engine and bot in one process',
    description: `Runs the configured live adapters (JMX exporter scrapes, admin API pollers, followed log files), the
alert loop over the store (Redis when REDIS_URL is set, a Redis Cluster with REDIS_CLUSTER_NODES, else in
memory) and, when SLACK_BOT_TOKEN is
set and the file has bot settings, the Slack bot, in one process. The bot keeps retrying while
Slack is unreachable (GET /healthz shows slack: down) and posts the alerts held meanwhile.`,
    options: SERVE_OPTIONS,
    helpAfter: `GET /healthz answers its state as JSON (503 when the store cannot be written); GET /metrics its own Prometheus metrics.
SIGTERM or SIGINT stops it. Logs go to stderr: JSON lines, or one readable line per record on a terminal
(KAFKA_WHY_LOG_FORMAT=json|pretty forces either).`,
    load: async () => (await import('../commands/serve.js')).execute,
  },
  {
    name: 'init',
    summary: 'write a starter kafka-why.yaml with every option commented',
    description: `Writes a starter configuration: every option of the bot and of serve, commented, with defaults. Edit
the clusters, channels and log paths, then run: kafka-why serve --config kafka-why.yaml`,
    options: INIT_OPTIONS,
    load: async () => (await import('../commands/init.js')).execute,
  },
  {
    name: 'agent',
    summary: 'host agent: /proc fd and mmap counts for one broker',
    description: `Reads the broker process's /proc/<pid>/fd and /proc/<pid>/maps counts, its open-files limit and
vm.max_map_count, and ships fd.open, fd.max, mmap.count and mmap.max to the store (Redis when
REDIS_URL or REDIS_CLUSTER_NODES is set), or with --topic to the signals topic that \`serve\` consumes.`,
    options: AGENT_OPTIONS,
    helpAfter: "Problems are logged on stderr as serve's are (JSON lines, readable on a terminal).",
    load: async () => (await import('../commands/agent.js')).execute,
  },
  {
    name: 'lab',
    summary: 'the real-Kafka incident lab',
    description: `Runs a fault scenario on a real Kafka cluster on 127.0.0.1, records it under
test/incidents/lab-<scenario>/ and checks the product's diagnosis of the recording.`,
    arguments: [{ name: 'scenario', description: 'the scenario to run (kafka-why lab list)', required: true }],
    options: LAB_OPTIONS,
    helpAfter: `With --live the recording goes to a scratch directory (unless --out) and is not diagnosed; a table of
fault → evidence → stored → alert → posted per run follows, with p50 and worst of fault → Slack.
Exit codes: 0 diagnosis as expected (or recorded with --no-diagnose; with --live, every run's Slack message named
the cause), 1 wrong diagnosis (with --live: a run without such a message within --timeout), 2 usage or lab error.`,
    load: async () => (await import('../commands/lab.js')).execute,
    subcommands: [
      {
        name: 'run',
        summary: 'the same as lab <scenario> (lab run stw --live)',
        arguments: [{ name: 'scenario', description: 'the scenario to run (kafka-why lab list)', required: true }],
        options: LAB_OPTIONS,
        load: async () => (await import('../commands/lab.js')).execute,
      },
      {
        name: 'list',
        summary: 'scenarios, with the time, memory and ports each needs',
        options: {},
        load: async () => (await import('../commands/lab.js')).list,
      },
      {
        name: 'all',
        summary: 'run every scenario (one cluster at a time) and print scenario, expected, top cause, fault → evidence',
        description: `Runs the whole catalogue on fresh clusters, one after another, recording each scenario and
diagnosing the recording; a scenario this machine cannot run (no root, a missing tool or kernel
feature) is listed as skipped with the reason.`,
        options: LAB_ALL_OPTIONS,
        helpAfter: 'Exit codes: 0 every scenario run diagnosed as expected, 1 a wrong diagnosis or a failed run, 2 usage or lab error.',
        load: async () => (await import('../commands/lab.js')).all,
      },
      {
        name: 'fetch',
        summary: "fetch Kafka's jars and the JMX exporter with Maven (lab/fetch-kafka.sh)",
        arguments: [{ name: 'version', description: 'another Kafka release to fetch beside 3.9.1 (e.g. 2.8.2)' }],
        options: {},
        load: async () => (await import('../commands/lab.js')).fetchKafka,
      },
      {
        name: 'cluster',
        summary: 'start a cluster and keep it until Ctrl-C (prints bootstrap and exporter ports)',
        options: LAB_CLUSTER_OPTIONS,
        load: async () => (await import('../commands/lab.js')).cluster,
      },
      {
        name: 'live-latency',
        summary: 'fault → alert on a real 3-broker cluster watched by serve',
        description: `Fault → alert on a real 3-broker cluster watched by serve (needs Redis on REDIS_URL or
127.0.0.1:6379, and root for disk-full); prints each leg of the delay.`,
        options: LAB_LATENCY_OPTIONS,
        load: async () => (await import('../commands/lab.js')).liveLatency,
      },
    ],
  },
  {
    name: 'bench',
    summary: 'benchmarks (ratios against a baseline measured in the same run)',
    description: 'Runs one of bench/*.ts in its own process, so a benchmark\'s memory and GC never mix with another\'s.',
    arguments: [
      { name: 'name', description: 'the benchmark', required: true, choices: Object.keys(BENCHES) },
      { name: 'args', description: "the benchmark's own options", variadic: true },
    ],
    options: {},
    passThrough: true,
    helpAfter: `Benchmarks:\n${Object.entries(BENCHES).map(([name, doc]) => `  ${name.padEnd(17)} ${doc}`).join('\n')}`,
    load: async () => (await import('../commands/bench.js')).execute,
  },
  {
    name: 'completion',
    summary: 'print a shell completion script (bash or zsh)',
    description: `Prints a completion script for commands, their options and the values of those that take a path.
Load it in the current shell with: source <(kafka-why completion bash)`,
    arguments: [{ name: 'shell', description: 'the shell', required: true, choices: COMPLETION_SHELLS }],
    options: {},
    load: async () => (await import('../commands/completion.js')).execute,
  },
]
