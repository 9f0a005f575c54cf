import { afterEach, describe, expect, it, vi } from 'vitest'
import { run } from '../../cli/commands/console.js'
import { validateBlocks, fallbackProblems } from './support/validate-blocks.js'

/** Runs `kafka-why console` in this process and returns what it printed, line by line. */
async function consoleLines(argv: string[]): Promise<{ code: number; lines: string[] }> {
  const out: string[] = []
  const spy = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')))
  try {
    const code = await run(argv)
    return { code, lines: out.join('\n').split('\n').filter(Boolean) }
  } finally {
    spy.mockRestore()
  }
}

describe('cli/commands/console --json', () => {
  afterEach(() => vi.restoreAllMocks())

  it('prints the exact Slack payload of a reply as one JSON object per line', async () => {
    const prev = process.env.REDIS_URL
    process.env.REDIS_URL = ''
    try {
      const { code, lines } = await consoleLines(['--json', '-c', 'why 1'])
      expect(code).toBe(0)
      expect(lines).toHaveLength(1)
      const payload = JSON.parse(lines[0]) as { method: string; channel: string; text: string; blocks: unknown[]; response_type: string; replace_original: boolean }
      expect(payload).toMatchObject({ method: 'response_url', channel: 'CCONSOLE', response_type: 'in_channel', replace_original: false })
      expect(payload.text).toMatch(/^Broker 1 \(perf-lab\): 1\. JVM stop-the-world pause on broker 1/)
      expect(validateBlocks(payload.blocks)).toEqual([])
      expect(fallbackProblems(payload.text)).toEqual([])
      expect(JSON.stringify(payload.blocks)).toContain('"action_id":"kafka_silence_1h"')
    } finally {
      process.env.REDIS_URL = prev
    }
  }, 60_000)
})
