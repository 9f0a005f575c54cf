import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSOLE_CHANNEL, CONSOLE_USER, DEFAULT_INCIDENT, openConsole, type ConsoleSession } from '../../bot/console/console-context.js'
import { HELP_EXAMPLES, help } from '../../bot/commands/help.js'
import { runCommand } from '../../bot/dispatch.js'
import type { BotMessage } from '../../bot/message.js'

/** All text a reply shows, as one string. */
function shown(m: BotMessage): string {
  return [m.text, ...m.parts.map((p) => ('text' in p ? String(p.text) : ''))].join('\n')
}

const examples = Object.values(HELP_EXAMPLES).flat()

describe('bot/commands/help: the examples work as printed', () => {
  let session: ConsoleSession

  beforeAll(async () => {
    // The console's own store (embedded, not Redis) over the incident it loads by default.
    session = await openConsole({ replay: DEFAULT_INCIDENT, env: { REDIS_URL: '' }, log: { error: () => undefined, info: () => undefined, warn: () => undefined } })
  }, 120_000)
  afterAll(async () => session?.close())

  it('prints every example, in the list and under its command', () => {
    const list = shown(help())
    for (const e of examples) expect(list).toContain(`\`/kafka ${e}\``)
    for (const [verb, own] of Object.entries(HELP_EXAMPLES)) for (const e of own) expect(shown(help(verb))).toContain(`\`/kafka ${e}\``)
    // The usage lines' inline examples are not printed unchecked.
    expect(list).not.toMatch(/e\.g\. `why 3/)
  })

  it.each(examples)('/kafka %s answers without an error over the default incident', async (example) => {
    const reply = await runCommand(session.ctx, { user: CONSOLE_USER, channel: CONSOLE_CHANNEL, text: example })
    if (/^(describe|config) /.test(example)) {
      // Admin API commands have no cluster connection in the console without --config: that exact answer, nothing else.
      if (reply.isError) expect(shown(reply)).toContain('The console has no Kafka admin connection: pass --config')
      return
    }
    expect(reply.isError, shown(reply)).toBeFalsy()
  }, 60_000)
})
