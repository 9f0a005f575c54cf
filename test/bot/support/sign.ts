import { createHmac } from 'node:crypto'

/**
 * Slack's v0 request signature (https://api.slack.com/authentication/verifying-requests-from-slack):
 * HMAC-SHA256 over "v0:<timestamp>:<raw body>" with the signing secret.
 */
export function signedHeaders(secret: string, body: string, timestampSec = Math.floor(Date.now() / 1000)): Record<string, string> {
  const sig = `v0=${createHmac('sha256', secret).update(`v0:${timestampSec}:${body}`).digest('hex')}`
  return { 'x-slack-request-timestamp': String(timestampSec), 'x-slack-signature': sig, 'content-type': 'application/x-www-form-urlencoded' }
}
