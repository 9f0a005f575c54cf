import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisStore } from '../../engine/store/redis-store.js'
import { loadIncident } from '../../bot/engine-bridge.js'
import { deletePrefixes, TEST_REDIS_URL as REDIS_URL } from '../support/redis-prefix.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { SEED_000, ROOT } from './support/bot-context.js'

const SCRIPT = fileURLToPath(new URL('./support/digest-replica.ts', import.meta.url))

function runReplica(env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, out, err })
    })
  })
}

describe('bot/digest (two bot processes on one Redis)', () => {
  const slack = new SlackStandIn()
  const prefix = `kafka-why-test-${randomBytes(6).toString('hex')}:`
  let now = 0

  beforeAll(async () => {
    await slack.start()
    const store = new RedisStore({ url: REDIS_URL, prefix })
    const loaded = await loadIncident(store, SEED_000)
    now = loaded.lastAt! + 1000
    await store.close()
  })
  afterAll(async () => {
    await slack.stop()
    await deletePrefixes([prefix])
  })

  it('posts exactly one digest and one chart between them', async () => {
    const startAt = String(Date.now() + 4000)
    const common = { REDIS_URL, KAFKA_WHY_REDIS_PREFIX: prefix, SLACK_API_URL: slack.apiUrl, DIGEST_NOW: String(now), START_AT: startAt }
    const [a, b] = await Promise.all([runReplica({ ...common, OWNER: 'replica-a' }), runReplica({ ...common, OWNER: 'replica-b' })])
    expect(a.code, a.err).toBe(0)
    expect(b.code, b.err).toBe(0)
    const runs = [...JSON.parse(a.out), ...JSON.parse(b.out)]
    expect(runs.filter((r) => r.posted)).toHaveLength(1)
    expect(runs.filter((r) => !r.posted)).toEqual([{ cluster: 'perf-lab', posted: false, reason: 'another replica holds the lock' }])
    const posts = slack.ok('chat.postMessage')
    expect(posts).toHaveLength(1)
    expect(posts[0].args.channel).toBe('C0PERF')
    expect(posts[0].args.text).toMatch(/^Kafka digest perf-lab/)
    const complete = slack.ok('files.completeUploadExternal')
    expect(complete).toHaveLength(1)
    expect(complete[0].args).toMatchObject({ channel_id: 'C0PERF', thread_ts: expect.stringMatching(/^\d+\.\d+$/) })
    const [upload] = [...slack.uploads.values()]
    expect(upload.subarray(1, 4).toString('ascii')).toBe('PNG')
    expect(slack.allProblems()).toEqual([])
  })
})
