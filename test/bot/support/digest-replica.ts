/**
 * One bot replica's digest trigger, as its own process: opens the shared Redis store (REDIS_URL,
 * KAFKA_WHY_REDIS_PREFIX), points its Web API client at SLACK_API_URL, runs the digest job once at
 * DIGEST_NOW and prints what it did as JSON. test/bot/replicas.test.ts starts two of these at once.
 */
import { webApi } from '@slack/bolt'
import { RedisStore } from '../../../engine/store/redis-store.js'
import { postDigests } from '../../../bot/digest/schedule-digest.js'
import { SlackPoster } from '../../../bot/slack/slack-poster.js'
import { testContext } from './bot-context.js'

const store = new RedisStore({ url: process.env.REDIS_URL!, prefix: process.env.KAFKA_WHY_REDIS_PREFIX! })
const now = Number(process.env.DIGEST_NOW)
const t = await testContext({ store, replay: false, now })
const client = new webApi.WebClient('xoxb-test', { slackApiUrl: process.env.SLACK_API_URL, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } })
const poster = new SlackPoster(async (m, a) => (await client.apiCall(m, a)) as unknown as Record<string, unknown>)
// Both replicas start together: wait for the agreed instant so neither wins by starting first.
await new Promise((r) => setTimeout(r, Math.max(0, Number(process.env.START_AT) - Date.now())))
const runs = await postDigests({ ctx: t.ctx, poster, owner: process.env.OWNER! }, now)
process.stdout.write(`${JSON.stringify(runs)}\n`)
await store.close()
