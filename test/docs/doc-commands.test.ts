import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { kafkaWhy, type CliResult } from '../support/kafka-why-cli.js'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'

// Every shell command the docs show (README.md and docs/*.md: lines of ```sh / ```bash blocks, and
// `$ `-prompted lines of any block) is listed below with what this test does with it:
//   run   — runs exactly as written and expects the exit code the docs promise;
//   help  — too slow, destructive or dependent on the reader's files to run here: runs the same
//           command's --help (or usage; in-process, the help is what is read) and checks that every
//           option the docs use is in it;
//   skip  — not a kafka-why command (installing, the whole suite, input typed into the REPL), with why.
// A command in the docs that is missing here fails the test, so a new example is never left unchecked.

const ROOT = new URL('../../', import.meta.url).pathname
const run = promisify(execFile)

type Plan = { mode: 'run'; exit?: number } | { mode: 'help' } | { mode: 'skip'; why: string }

const LOCALE_MO = '/usr/share/locale/de/LC_MESSAGES/libc.mo'

const PLAN: Record<string, Plan> = {
  'npm ci': { mode: 'skip', why: 'installs the dependencies this test runs on' },
  'npm test': { mode: 'skip', why: 'the whole suite, this test included' },
  'npx kafka-why test': { mode: 'help' },
  'npx kafka-why why 1 --replay test/incidents/seed-000-stw-session-expiry': { mode: 'run', exit: 0 },
  'npx kafka-why why 3 --replay /var/log/kafka/': { mode: 'help' },
  'npx kafka-why why --replay /your/logs/': { mode: 'help' },
  'npx kafka-why why --replay logs/kafka-broker-3/': { mode: 'help' },
  'npx kafka-why why 1 --broker 1=a/ --broker 2=b/': { mode: 'help' },
  'npx kafka-why why --replay bundle/': { mode: 'help' },
  'npx kafka-why why --cluster prod': { mode: 'help' },
  'npx kafka-why why 3 --replay bundle/': { mode: 'help' },
  'npx kafka-why replay /var/log/kafka/server.log.gz': { mode: 'help' },
  'lab/fetch-kafka.sh': { mode: 'run', exit: 0 },
  'npm run lab -- list': { mode: 'run', exit: 0 },
  'npm run lab -- stw': { mode: 'help' },
  'npm run lab -- stw --out /tmp/x --keep': { mode: 'help' },
  'npm run lab -- cluster --brokers 3 --session-timeout-ms 6000': { mode: 'help' },
  'npm run lab -- cluster --brokers 3 --session-timeout-ms 6000 --keep': { mode: 'help' },
  'npm run lab -- live-latency': { mode: 'help' },
  'npm run lab -- stw --live --runs 5': { mode: 'help' },
  'npm run lab -- roll-storm --live --runs 5': { mode: 'help' },
  'npm run lab -- stw --live --keep': { mode: 'help' },
  // .ci/run fetches 3.6.2 for test/lab/versions.test.ts, so this is a cache check there.
  'lab/fetch-kafka.sh 3.6.2': { mode: 'run', exit: 0 },
  'npm run lab -- roll-storm --kafka-version 3.6.2': { mode: 'help' },
  'npm run lab -- cluster --kraft --kafka-version 4.1.1': { mode: 'help' },
  'npm run lab -- all': { mode: 'help' },
  'npm run lab -- all --only disk-full,zk-kill --out /tmp/lab': { mode: 'help' },
  'npm run lab -- live-latency --tick 15s --lag 15s --build /tmp/kafka-why-before': { mode: 'help' },
  'java -cp ".cache/kafka/lib/*" org.apache.kafka.tools.TopicCommand --bootstrap-server 127.0.0.1:9092 --describe': { mode: 'help' },
  'npx kafka-why lint [--format text|json|github|sarif|checkstyle] [--retention 7d] [files|dirs…]': { mode: 'help' },
  'npx kafka-why fmt [--check | --stdout] [--format json] [files|dirs…]': { mode: 'help' },
  'npx kafka-why lint rules/': { mode: 'run', exit: 0 },
  'npx kafka-why fmt --check rules/': { mode: 'run', exit: 0 },
  'npx kafka-why test rules/': { mode: 'help' },
  'npx kafka-why test rules/tests/jvm.yaml --rules my-branch/rules --junit report.xml': { mode: 'help' },
  'npx kafka-why test rules/ --verbose': { mode: 'help' },
  'npx kafka-why test rules/ --format github': { mode: 'help' },
  'npx kafka-why console -c "why 1"': { mode: 'run', exit: 0 },
  'npx kafka-why console --replay test/incidents/seed-001-roll-storm-map-failed': { mode: 'help' },
  '/kafka why 1': { mode: 'skip', why: 'typed into the console REPL, not the shell' },
  'npx kafka-why digest --out chart.png': { mode: 'help' },
  'npx kafka-why console --config bot.yaml --as U0123ABCD': { mode: 'help' },
  'apt-get install libc-l10n': { mode: 'skip', why: 'installs a Debian package (CI does: .ci/run)' },
  'npx tsx lab/wording/errno-texts.ts [--locale-dir /usr/share/locale] [--out adapters/logs/wording/errno-texts.json]': { mode: 'help' },
  'kafka-why why 1 --replay mylogs/': { mode: 'help' },
  'kafka-why why 2 --replay healthy/': { mode: 'help' },
  'kafka-why why --replay rules/tests/lines/client-librdkafka-refused-then-disconnected/client.log': { mode: 'run', exit: 0 },
  'kafka-why why --replay rules/tests/lines/client-sarama-no-broker-left/client.log': { mode: 'run', exit: 0 },
  'kafka-why why --replay rules/tests/lines/client-kafkajs-connect-timeouts/client.log': { mode: 'run', exit: 0 },
  'echo $?': { mode: 'skip', why: 'shows the exit code of the command before it' },
  'kafka-why why --replay rules/tests/lines/connect-task-failed-hdfs/connect.log': { mode: 'run', exit: 0 },
  'kafka-why why --replay rules/tests/lines/connect-offset-flush-timeouts/connect.log': { mode: 'run', exit: 0 },
  'kafka-why why --replay rules/tests/lines/streams-processing-exception-shutdown/app.log': { mode: 'run', exit: 0 },
  'kafka-why why --group payments-ledger': { mode: 'help' },
  'kafka-why why --group payments-ledger --replay test/incidents/lab-consumer-paused': { mode: 'run', exit: 0 },
  '/kafka why group payments-ledger 2h': { mode: 'skip', why: 'a Slack command (test/bot/why-group.test.ts sends it through the bot)' },
  'npx kafka-why ci --base origin/main': { mode: 'help' },
  'npx kafka-why ci --base origin/main --replay test/incidents/lab-stw': { mode: 'help' },
  'npx kafka-why ci --base origin/main --format markdown --output comment.md': { mode: 'help' },
  'npx kafka-why ci --base origin/main --fail-on-new-critical': { mode: 'help' },
  'npx kafka-why why 1 --sinc 1h': { mode: 'run', exit: 2 },
  'source <(kafka-why completion bash)': { mode: 'skip', why: "loads the completion script into the reader's shell (test/cli/command-line/completion.test.ts sources it in bash)" },
  'kafka-why completion bash > ~/.local/share/bash-completion/completions/kafka-why': { mode: 'skip', why: "installs the script into the reader's home (the script is tested in test/cli/command-line/completion.test.ts)" },
  'source <(kafka-why completion zsh)': { mode: 'skip', why: "loads the completion script into the reader's shell (test/cli/command-line/completion.test.ts loads it in zsh)" },
  'kafka-why completion zsh > ~/.zfunc/_kafka-why': { mode: 'skip', why: "installs the script into the reader's home (the script is tested in test/cli/command-line/completion.test.ts)" },
}

/** The commands of one Markdown file, comments and prompts removed. */
function commandsOf(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
    const shell = ['sh', 'bash', 'shell', 'console'].includes(m[1])
    for (const raw of m[2].split('\n')) {
      const prompted = /^\s*\$ /.test(raw)
      if (!shell && !prompted) continue
      const line = raw.replace(/^\s*\$ /, '').replace(/\s+#\s.*$/, '').trim()
      if (line && !line.startsWith('#')) out.push(line)
    }
  }
  return out
}

const DOCS = ['README.md', 'docs/ci/README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
const FOUND = DOCS.flatMap((file) => commandsOf(readFileSync(path.join(ROOT, file), 'utf8')).map((command) => ({ file, command })))

/** Splits a documented command line into words (double quotes group; no other shell syntax is used). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2])
}

/** How to invoke a documented command: the kafka-why CLI (with its argv), or a program of its own. */
function target(command: string): { cli: string[] } | { program: string; args: string[] } {
  const w = words(command)
  if (w[0] === 'npx' && w[1] === 'kafka-why') return { cli: w.slice(2) }
  if (w[0] === 'kafka-why') return { cli: w.slice(1) }
  if (w[0] === 'npm' && w[1] === 'run' && w[2] === 'lab') return { cli: ['lab', ...w.slice(w[3] === '--' ? 4 : 3)] }
  if (w[0] === 'java') return { program: 'java', args: w.slice(1) }
  if (w[0] === 'npx' && w[1] === 'tsx') return { program: 'npx', args: w.slice(1) }
  return { program: path.join(ROOT, w[0]), args: w.slice(1) }
}

async function exec(program: string, args: string[], cwd = ROOT): Promise<CliResult> {
  try {
    const r = await run(program, args, { cwd, timeout: 90_000 })
    return { code: 0, stdout: r.stdout, stderr: r.stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** The options a documented line uses (`--keep`, `--session-timeout-ms`), synopsis brackets included. */
const optionsOf = (command: string) => [...new Set([...command.matchAll(/(?<![\w-])(--[a-z][\w-]*)/g)].map((m) => m[1]))]

describe('docs: every command shown is run', () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-doc-commands-'))
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  it('has a plan for every command the docs show, and none for commands they no longer show', () => {
    const shown = new Set(FOUND.map((f) => f.command))
    expect(FOUND.filter((f) => !(f.command in PLAN)).map((f) => `${f.file}: ${f.command}`)).toEqual([])
    expect(Object.keys(PLAN).filter((c) => !shown.has(c))).toEqual([])
  })

  const runs = [...new Set(FOUND.map((f) => f.command))].filter((c) => PLAN[c]?.mode === 'run')
  it.concurrent.each(runs)('runs `%s` as written', { timeout: 120_000 }, async (command) => {
    const plan = PLAN[command] as { mode: 'run'; exit?: number }
    const t = target(command)
    if (command === 'lab/fetch-kafka.sh' && !existsSync(path.join(ROOT, '.cache/kafka/READY'))) return
    if (command === 'lab/fetch-kafka.sh 3.6.2' && !existsSync(path.join(ROOT, '.cache/kafka-3.6.2/READY'))) return
    const r = 'cli' in t ? await kafkaWhy(t.cli, {}, ROOT) : await exec(t.program, t.args)
    expect(r.code, `${command}\n${r.stderr}`).toBe(plan.exit ?? 0)
  })

  const usages = new Map<string, Promise<CliResult>>()
  const helps = [...new Set(FOUND.map((f) => f.command))].filter((c) => PLAN[c]?.mode === 'help')
  it.concurrent.each(helps)("knows every option of `%s` (its usage, not a run)", { timeout: 60_000 }, async (command) => {
    const t = target(command)
    let r: CliResult
    if ('cli' in t) {
      // The help of the command as written up to its first option: `lab cluster --help` for a subcommand.
      const words = t.cli.slice(0, Math.max(1, t.cli.findIndex((w) => /^[-[]/.test(w)) === -1 ? t.cli.length : t.cli.findIndex((w) => /^[-[]/.test(w))))
      const key = words.join(' ')
      if (!usages.has(key)) usages.set(key, kafkaWhyInProcess([...words, '--help'], {}, ROOT))
      r = await usages.get(key)!
      expect(r.code, `${command}\n${r.stderr}`).toBe(0)
    } else if (t.program === 'java') {
      // Kafka's tools need a cluster; --version proves the documented class path holds the tool.
      if (!existsSync(path.join(ROOT, '.cache/kafka/READY'))) return
      r = await exec('java', [...t.args.slice(0, 3), '--version'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/^3\.9\.\d/)
      return
    } else {
      // errno-texts.ts writes a table; run it into a scratch file when glibc's translations are here.
      if (!existsSync(LOCALE_MO)) return
      r = await exec(t.program, [...t.args.slice(0, 2), '--out', path.join(scratch, 'errno.json')])
      expect(r.code, r.stderr).toBe(0)
      expect(readFileSync(path.join(scratch, 'errno.json'), 'utf8')).toContain('"ENOSPC"')
      return
    }
    const usage = r.stdout + r.stderr
    for (const opt of optionsOf(command)) expect(usage, `${opt} of \`${command}\``).toContain(opt)
  })
})
