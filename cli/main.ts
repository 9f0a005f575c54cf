/**
 * The kafka-why command. Each subcommand lives in cli/commands/<name>.ts and exports
 * `run(argv): Promise<number>` (the exit code); it is imported only when used so `lint` in CI
 * never loads Slack or Kafka clients.
 */
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run(argv: string[]): Promise<number> }> }> = {
  why: { summary: 'ranked diagnosis of one broker', load: () => import('./commands/why.js') },
  replay: { summary: 'ingest recorded signals or logs and print alerts as they would have fired', load: () => import('./commands/replay.js') },
  lint: { summary: 'check rule files; file:line:col diagnostics', load: () => import('./commands/lint.js') },
  fmt: { summary: 'print or rewrite rule files in the canonical layout', load: () => import('./commands/fmt.js') },
  test: { summary: 'run rule tests against recorded incidents and inline timelines', load: () => import('./commands/test.js') },
  ci: { summary: 'lint, format-check, test and backtest the rule changes of a pull request', load: () => import('./commands/ci.js') },
  corpus: { summary: 'top-1 accuracy of the rules on the real-incident corpus', load: () => import('./commands/corpus.js') },
  digest: { summary: 'build the daily health digest', load: () => import('./commands/digest.js') },
  console: { summary: 'the Slack bot in a terminal, over the embedded store', load: () => import('./commands/console.js') },
  serve: { summary: 'adapters, engine and bot in one process', load: () => import('./commands/serve.js') },
  init: { summary: 'write a starter kafka-why.yaml with every option commented', load: () => import('./commands/init.js') },
  agent: { summary: 'host agent: /proc fd and mmap counts for one broker', load: () => import('./commands/agent.js') },
  lab: { summary: 'the real-Kafka incident lab', load: () => import('./commands/lab.js') },
  bench: { summary: 'benchmarks (ratios against a baseline measured in the same run)', load: () => import('./commands/bench.js') },
}

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length))
  return [
    'usage: kafka-why <command> [options]',
    '',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'kafka-why <command> --help for a command\'s options',
  ].join('\n')
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage())
    return name ? 0 : 2
  }
  const command = COMMANDS[name]
  if (!command) {
    console.error(`kafka-why: unknown command '${name}'\n\n${usage()}`)
    return 2
  }
  let mod
  try {
    mod = await command.load()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String(err).includes(`commands/${name}`)) {
      console.error(`kafka-why: '${name}' is not available in this build`)
      return 2
    }
    throw err
  }
  return mod.run(rest)
}
