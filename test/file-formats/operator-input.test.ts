import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseBotConfig } from '../../bot/config.js'
import { kafkaWhy } from '../support/kafka-why-cli.js'

// What an operator writes into kafka-why.yaml is checked in bounded time and memory, and every
// refusal is one `file:line:col: key: message` line: a cron range of a billion killed Node with a
// V8 fatal error, `0-9999999` took 20 s and 1.3 GB to refuse, and a YAML alias bomb made `serve`
// exit with a ReferenceError's stack trace.

const CLUSTERS = 'clusters:\n  prod: { brokers: ["k:9092"], channel: C0123ABCD }\n'
/** The "billion laughs" shape: each level refers to the previous one nine times. */
const ALIAS_BOMB = `${CLUSTERS}a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
`

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-operator-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const problemsOf = (text: string): string[] => {
  try {
    parseBotConfig(text, 'kafka-why.yaml')
    return []
  } catch (err) {
    return (err as { problems?: string[] }).problems ?? [`not a ConfigError: ${String(err)}`]
  }
}

describe('file-formats/kafka-why-config operator input', () => {
  it.each([
    ['0-9999999 9 * * *', '0-9999999 9 * * *', 'a range past 59 in the minute field'],
    ['0-998038269 9 * * *', '0-998038269 9 * * *', 'a range past 59 in the minute field'],
    ['*/0 * * * *', '*/0 * * * *', 'a step of 0'],
    ['0 9 * * * * *', '0 9 * * * * *', '5 or 6 fields'],
    ['a list of 501 minutes', `${'1,'.repeat(500)}1 9 * * *`, 'longer than'],
    ['0 25 * * *', '0 25 * * *', 'past 23 in the hour field'],
  ])('refuses the cron expression %s quickly, at its line and column', (_, schedule, reason) => {
    const started = performance.now()
    const problems = problemsOf(`${CLUSTERS}digest: { schedule: "${schedule}" }\n`)
    expect(performance.now() - started).toBeLessThan(200)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^kafka-why\.yaml:3:\d+: digest\.schedule: /)
    expect(problems[0]).toContain(reason)
  })

  it.each(['0 9 * * *', '*/15 8-18 * * 1-5', '0 0 1 jan,jul *', '30 6 * * mon-fri', '0 0 9 * * sun'])('accepts the cron expression %s', (schedule) => {
    expect(problemsOf(`${CLUSTERS}digest: { schedule: "${schedule}" }\n`)).toEqual([])
  })

  it('refuses a YAML alias bomb as a file:line:col problem, not a thrown ReferenceError', () => {
    const problems = problemsOf(ALIAS_BOMB)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^kafka-why\.yaml:\d+:\d+: .*alias/)
  })

  it('serve refuses the alias bomb with one line and exit 2, never a stack trace', async () => {
    const file = path.join(dir, 'kafka-why.yaml')
    await writeFile(file, ALIAS_BOMB)
    const r = await kafkaWhy(['serve', '--config', file])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: .*alias`))
    expect(r.stderr).not.toMatch(/\n\s+at /)
    expect(r.stderr).not.toContain('ReferenceError')
  }, 120_000)
})
