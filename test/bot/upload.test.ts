import { execFileSync } from 'node:child_process'
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SlackBot } from '../../bot/app.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import { deletePrefixes, TEST_REDIS_URL } from '../support/redis-prefix.js'
import { SEED_000, testContext, type TestContext } from './support/bot-context.js'
import { signedHeaders } from './support/sign.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { startHttpBot } from './support/http-bot.js'

// A log shared in a Slack thread, diagnosed when the bot is mentioned there: through Bolt's HTTP
// receiver with signed event requests, the files fetched from the stand-in with the bot token, the
// answer posted in the thread, and the team's own (Redis) store left untouched.
const SECRET = 'test-signing-secret-upload-0123'
const PREFIX = `kafka-why-test-upload-${process.pid}-${Date.now()}:`
const LOGS = path.join(SEED_000, 'broker-1')

describe('bot/upload (logs shared in a thread, diagnosed on mention or bare /kafka why)', () => {
  const slack = new SlackStandIn()
  let bot: SlackBot
  let t: TestContext
  let store: RedisStore
  let url: string
  let zip: Buffer
  let seq = 0

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'upload-test-'))
    try {
      execFileSync('zip', ['-q', '-j', path.join(dir, 'broker-1.zip'), path.join(LOGS, 'server.log'), path.join(LOGS, 'gc.log')])
      zip = await readFile(path.join(dir, 'broker-1.zip'))
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
    await slack.start()
    store = new RedisStore({ url: TEST_REDIS_URL, prefix: PREFIX })
    t = await testContext({ store, replay: false, now: Date.parse('2026-01-01T00:00:00Z') })
    ;({ bot, url } = await startHttpBot(t.ctx, slack, SECRET, slack.botToken))
  })
  afterAll(async () => {
    await bot?.stop()
    await slack.stop()
    await store?.close()
    await deletePrefixes([PREFIX])
  })

  /** A thread in C0PERF whose parent shares `files` (and says `text`); gives the thread ts. */
  function thread(files: string[], text = 'logs from last night'): string {
    const ts = `1700000${String(++seq).padStart(3, '0')}.000100`
    slack.threads.set(`C0PERF/${ts}`, [{ type: 'message', user: 'U0CAROL', text, ts, files: files.map((id) => ({ id })) }])
    return ts
  }

  /** Sends a signed app_mention event in the thread and waits for the bot's post there. */
  async function mention(threadTs: string, text = '<@UBOT> why'): Promise<Record<string, any>> {
    const ts = `${Number(threadTs.split('.')[0]) + 1}.000200`
    const body = JSON.stringify({
      token: 'x',
      team_id: 'TTEAM',
      api_app_id: 'AAPP',
      type: 'event_callback',
      event_id: `Ev${++seq}`,
      event_time: 1700000000,
      event: { type: 'app_mention', user: 'U0CAROL', text, ts, thread_ts: threadTs, channel: 'C0PERF', event_ts: ts },
    })
    const started = performance.now()
    const res = await fetch(url, { method: 'POST', body, headers: { ...signedHeaders(SECRET, body), 'content-type': 'application/json' } })
    await res.text()
    expect(res.status).toBe(200)
    // Acknowledged before the download and the diagnosis: Slack redelivers events not acked in 3 s.
    expect(performance.now() - started).toBeLessThan(3000)
    const posted = () => slack.ok('chat.postMessage').find((c) => c.args.thread_ts === threadTs)
    await slack.waitFor(() => posted() !== undefined, 20_000)
    return posted()!.args
  }

  it('diagnoses seed 000 zipped (server.log + gc.log) in the thread, naming the stop-the-world pause', async () => {
    const threadTs = thread([slack.shareFile({ name: 'broker-1.zip', bytes: zip })])
    const reply = await mention(threadTs)
    expect(reply.channel).toBe('C0PERF')
    expect(reply.text).toContain('JVM stop-the-world pause on broker 1')
    const blocks = JSON.stringify(reply.blocks)
    expect(blocks).toContain('stw_pause_session_expiry')
    expect(blocks).toContain('Client session timed out, have not heard from server in 7768ms')
    // server.log has no offset; the zipped gc.log lends its -04:00, and the reply says so.
    expect(blocks).toContain('offset-less times read as -04:00 (the offset gc.log carries)')
    expect(blocks).not.toContain('"type":"actions"')
    const download = slack.calls.filter((c) => c.method === 'download')
    expect(download.at(-1)?.args).toMatchObject({ authorized: true })
    expect(slack.allProblems()).toEqual([])
  }, 30_000)

  it('reads a .gz the same way, the broker taken from the mention, secrets in the reply redacted', async () => {
    const threadTs = thread([
      slack.shareFile({ name: 'server-xoxb-1234567-secretpart.log.gz', bytes: gzipSync(await readFile(path.join(LOGS, 'server.log'))) }),
      slack.shareFile({ name: 'gc.log.gz', bytes: gzipSync(await readFile(path.join(LOGS, 'gc.log'))) }),
    ])
    const reply = await mention(threadTs, '<@UBOT> why broker-1')
    const blocks = JSON.stringify(reply.blocks)
    expect(blocks).toContain('stw_pause_session_expiry')
    expect(blocks).toContain('server-xoxb-[redacted]')
    expect(blocks).not.toContain('secretpart')
  }, 30_000)

  /** Sends a signed `/kafka why` from U0CAROL in C0PERF; gives the response_url's answer. */
  async function slashWhy(): Promise<Record<string, any>> {
    const responseUrl = slack.responseUrl()
    const body = new URLSearchParams({ token: 'x', team_id: 'TTEAM', channel_id: 'C0PERF', user_id: 'U0CAROL', command: '/kafka', text: 'why', api_app_id: 'AAPP', response_url: responseUrl, trigger_id: '1.2.3' }).toString()
    const res = await fetch(url, { method: 'POST', body, headers: signedHeaders(SECRET, body) })
    await res.text()
    expect(res.status).toBe(200)
    const path = new URL(responseUrl).pathname
    await slack.waitFor(() => slack.responses.some((r) => r.args.__path === path), 20_000)
    return slack.responses.find((r) => r.args.__path === path)!.args
  }

  it('a bare /kafka why diagnoses the file the asker shared last in the channel, in that message’s thread', async () => {
    const ts = '1700009999.000100'
    slack.histories.set('C0PERF', [
      { type: 'message', user: 'U0BOB', text: 'unrelated', ts: '1700010001.000100', files: [{ id: slack.shareFile({ name: 'other.log', bytes: Buffer.from('x\n') }) }] },
      { type: 'message', user: 'U0CAROL', text: 'broker 1 logs', ts, files: [{ id: slack.shareFile({ name: 'broker-1.zip', bytes: zip }) }] },
    ])
    try {
      const ack = await slashWhy()
      expect(ack.response_type).toBe('ephemeral')
      expect(ack.text).toMatch(/the diagnosis goes in that message’s thread/)
      await slack.waitFor(() => slack.ok('chat.postMessage').some((c) => c.args.thread_ts === ts), 20_000)
      const reply = slack.ok('chat.postMessage').find((c) => c.args.thread_ts === ts)!.args
      expect(JSON.stringify(reply.blocks)).toContain('stw_pause_session_expiry')
    } finally {
      slack.histories.delete('C0PERF')
    }
  }, 30_000)

  it('a bare /kafka why with nothing the asker shared still asks for a broker', async () => {
    slack.histories.set('C0PERF', [{ type: 'message', user: 'U0BOB', text: 'mine', ts: '1700010001.000100', files: [{ id: 'F1' }] }])
    try {
      const r = await slashWhy()
      // The channel is perf-lab's, whose brokers have not reported: no cluster answer, so the usage line.
      expect(r.text).toMatch(/No broker of cluster perf-lab has reported yet, so there is no cluster answer\. Usage: `\/kafka why &lt;broker&gt; \[since\]`/)
    } finally {
      slack.histories.delete('C0PERF')
    }
  })

  it('leaves the team store without a signal, a broker or a recorded diagnosis', async () => {
    expect(await store.brokers()).toEqual([])
    expect(await store.recentDiagnoses(0)).toEqual([])
    expect(await store.query({ cluster: 'perf-lab', broker: '1', from: 0, to: Date.now() })).toEqual([])
  })

  it('refuses a file over 50 MiB with a reply in the thread, without downloading it', async () => {
    const before = slack.calls.filter((c) => c.method === 'download').length
    const threadTs = thread([slack.shareFile({ name: 'server.log', bytes: Buffer.from('x'), size: 60 * 1024 ** 2 })])
    const reply = await mention(threadTs)
    expect(reply.text).toMatch(/server\.log is 60\.0 MiB; I read files up to 50\.0 MiB/)
    expect(slack.calls.filter((c) => c.method === 'download').length).toBe(before)
  })

  it('stops reading a download that runs past the cap whatever files.info and the headers said', async () => {
    const declared = await mention(thread([slack.shareFile({ name: 'big.log', bytes: Buffer.alloc(51 * 1024 ** 2, 0x41), size: 1000 })]))
    expect(declared.text).toMatch(/big\.log is 51\.0 MiB; I read files up to 50\.0 MiB/)
    const streamed = await mention(thread([slack.shareFile({ name: 'big.log', bytes: Buffer.alloc(51 * 1024 ** 2, 0x41), size: 1000, chunked: true })]))
    expect(streamed.text).toMatch(/big\.log is larger than 50\.0 MiB, the most I read/)
  }, 30_000)

  it('gets nothing from the private URL without the bot token (as Slack: a sign-in redirect)', async () => {
    const id = slack.shareFile({ name: 'server.log', bytes: await readFile(path.join(LOGS, 'server.log')) })
    const info = await (await fetch(`${slack.apiUrl}files.info`, { method: 'POST', body: new URLSearchParams({ file: id }) })).json()
    const res = await fetch(info.file.url_private_download, { redirect: 'manual' })
    expect(res.status).toBe(302)
    expect(await res.text()).not.toContain('Kafka')
    expect(slack.calls.at(-1)).toMatchObject({ method: 'download', args: { authorized: false }, status: 302 })
  })

  it('tells the thread Slack did not hand the file over when the token is refused', async () => {
    const id = slack.shareFile({ name: 'server.log', bytes: await readFile(path.join(LOGS, 'server.log')) })
    slack.botToken = 'xoxb-rotated'
    try {
      const reply = await mention(thread([id]))
      expect(reply.text).toMatch(/Slack did not hand over server\.log \(HTTP 302\)\. The app needs the files:read scope/)
      expect(slack.calls.filter((c) => c.method === 'download').at(-1)).toMatchObject({ args: { authorized: false }, status: 302 })
    } finally {
      slack.botToken = 'xoxb-test'
    }
  })

  it('answers with how to share logs when the thread has none, and escapes file names', async () => {
    const none = await mention(thread([]))
    expect(none.text).toMatch(/I found no log here/)
    const other = await mention(thread([]), '<@UBOT> hello there')
    expect(other.text).toMatch(/Mention me with `why` \(or `why 3` for broker 3\)/)
    const odd = await mention(thread([slack.shareFile({ name: '<!channel>.png', bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3]) })]))
    expect(odd.text).toMatch(/is a log I can read/)
    expect(JSON.stringify(odd.blocks)).not.toContain('<!channel>')
  })

  it('diagnoses lines pasted in a code block of the thread, as the broker the mention names', async () => {
    const lines = (await readFile(path.join(LOGS, 'server.log'), 'utf8')).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    const reply = await mention(thread([], `broker 1 last night:\n\`\`\`${lines}\`\`\``), '<@UBOT> why 1')
    expect(reply.text).toMatch(/^Broker 1 \(perf-lab\)/)
    const blocks = JSON.stringify(reply.blocks)
    // Without the GC log a pause can be neither shown nor ruled out: the server.log-only rule answers.
    expect(blocks).toContain('zk_session_expiry_pause_unknown')
    expect(blocks).toMatch(/pasted\.log: \d+ lines from 1 file/)
    // Unescaped back to the broker's own text before parsing.
    expect(blocks).toContain('Client session timed out, have not heard from server in 7768ms')
  })

  it('an uploaded incident.yaml naming host files (by ../ or absolute path) reads none of them and says nothing of them', async () => {
    // A broker log with ERROR lines planted on the host, in the temp root the old reader wrote uploads to.
    const host = await mkdtemp(path.join(tmpdir(), 'upload-host-'))
    try {
      await copyFile(path.join(SEED_000, '..', 'lab-direct-memory-oom', 'broker-1', 'server.log'), path.join(host, 'server.log'))
      const yaml = (file: string) => Buffer.from(`cluster: perf-lab\nsources:\n  - { path: ../${path.basename(host)}/${file}, broker: 1 }\n  - { path: ${path.join(host, file)}, broker: 1 }\n`)
      const there = await mention(thread([slack.shareFile({ name: 'incident.yaml', bytes: yaml('server.log') })]), '<@UBOT> why 1')
      const absent = await mention(thread([slack.shareFile({ name: 'incident.yaml', bytes: yaml('missing.log') })]), '<@UBOT> why 1')
      const shown = JSON.stringify(there)
      expect(shown).not.toContain('Processor got uncaught exception')
      expect(shown).not.toMatch(/\d+ lines? from/)
      expect(there.text).toMatch(/not a file of this upload/)
      // Whether the host file exists or not, the same answer.
      expect(there.text.replaceAll('server.log', 'X')).toBe(absent.text.replaceAll('missing.log', 'X'))
    } finally {
      await rm(host, { recursive: true, force: true })
    }
  }, 30_000)
})
