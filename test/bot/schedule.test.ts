import { webApi } from '@slack/bolt'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { scheduleDigest, type DigestRun } from '../../bot/digest/schedule-digest.js'
import { SlackPoster } from '../../bot/slack/slack-poster.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { TEST_CONFIG, testContext } from './support/bot-context.js'

describe('bot/digest/schedule-digest', () => {
  const slack = new SlackStandIn()
  beforeAll(() => slack.start())
  afterAll(() => slack.stop())
  afterEach(() => vi.useRealTimers())

  it.each([
    ['Europe/Berlin', '0 9 * * *', '2026-11-30T08:00:00Z'],
    ['America/New_York', '0 9 * * *', '2026-11-30T14:00:00Z'],
    ['Asia/Kolkata', '30 8 * * 1-5', '2026-11-30T03:00:00Z'],
  ])('in %s, "%s" posts the digest at %s and not a second earlier', async (tz, schedule, due) => {
    const dueMs = Date.parse(due)
    vi.useFakeTimers({ now: dueMs - 90_000, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
    const config = TEST_CONFIG.replace('time_zone: America/New_York', `time_zone: ${tz}`).replace('"0 9 * * *"', `"${schedule}"`)
    const t = await testContext({ config, replay: false })
    t.ctx.now = () => Date.now()
    const client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } })
    const poster = new SlackPoster(async (m, a) => (await client.apiCall(m, a)) as unknown as Record<string, unknown>)
    const runs: { at: number; runs: DigestRun[] }[] = []
    let done: () => void = () => undefined
    const finished = new Promise<void>((r) => (done = r))
    const task = scheduleDigest({ ctx: t.ctx, poster, owner: 'replica-a' }, (r) => {
      runs.push({ at: Date.now(), runs: r })
      done()
    })!
    try {
      await vi.advanceTimersByTimeAsync(89_000)
      expect(runs).toEqual([])
      await vi.advanceTimersByTimeAsync(2_000)
      await finished
      expect(runs).toHaveLength(1)
      expect(runs[0].runs).toEqual([{ cluster: 'perf-lab', posted: true }])
      expect(runs[0].at - dueMs).toBeLessThan(2_000)
      expect(runs[0].at).toBeGreaterThanOrEqual(dueMs)
      const posts = slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.text?.startsWith('Kafka digest perf-lab'))
      expect(posts.length).toBeGreaterThan(0)
      expect(slack.allProblems()).toEqual([])
    } finally {
      await task.destroy()
    }
  })

  it('posts at each time of a schedule with several runs a day, and the same replica wins each', async () => {
    const first = Date.parse('2026-11-30T08:00:00Z')
    vi.useFakeTimers({ now: first - 30_000, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
    const t = await testContext({ config: TEST_CONFIG.replace('time_zone: America/New_York', 'time_zone: Europe/Berlin').replace('"0 9 * * *"', '"0 9,17 * * *"'), replay: false })
    t.ctx.now = () => Date.now()
    const client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } })
    const poster = new SlackPoster(async (m, a) => (await client.apiCall(m, a)) as unknown as Record<string, unknown>)
    const runs: DigestRun[][] = []
    let wake: () => void = () => undefined
    const task = scheduleDigest({ ctx: t.ctx, poster, owner: 'replica-a' }, (r) => {
      runs.push(r)
      wake()
    })!
    try {
      for (const expected of [1, 2]) {
        const ran = new Promise<void>((r) => (wake = r))
        await vi.advanceTimersByTimeAsync(expected === 1 ? 31_000 : 8 * 3_600_000)
        await ran
        expect(runs).toHaveLength(expected)
      }
      expect(runs.flat().map((r) => r.posted)).toEqual([true, true])
    } finally {
      await task.destroy()
    }
  })

  it('does not schedule when the digest is disabled', async () => {
    const t = await testContext({ config: TEST_CONFIG.replace('digest: { schedule: "0 9 * * *" }', 'digest: { enabled: false }'), replay: false })
    const poster = new SlackPoster(async () => ({}))
    expect(scheduleDigest({ ctx: t.ctx, poster, owner: 'x' })).toBeUndefined()
  })
})
