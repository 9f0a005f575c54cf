import { createInterface } from 'node:readline/promises'
import { handleAction } from '../../bot/actions/handle-action.js'
import { consoleIdentity } from '../../bot/console/console-context.js'
import { UserError } from '../../bot/errors.js'
import { runCommand } from '../../bot/dispatch.js'
import type { BotMessage, Button } from '../../bot/message.js'
import { toRespond } from '../../bot/listeners.js'
import { toConsole } from '../../bot/render/console.js'
import { messageArgs } from '../../bot/slack/slack-poster.js'
import { openSession, readSessionOptions } from '../console-session.js'
import { checkRulePaths } from '../rule-paths.js'
import type { CONSOLE_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand as runKafkaWhyCommand } from '../command-line/program.js'

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runKafkaWhyCommand('console', argv)

/** `kafka-why console`: the bot's commands and messages over the embedded store, no Slack needed. */
export async function execute({ options }: CommandInput<typeof CONSOLE_OPTIONS>): Promise<number> {
  const { rules: rulesPaths, command: oneShot, json, as } = options
  await checkRulePaths(rulesPaths, '--rules')
  const args = readSessionOptions('console', options)
  if (typeof args === 'number') return args
  const session = await openSession('console', { ...args, rulesPaths: rulesPaths.length ? rulesPaths : undefined })
  if (typeof session === 'number') return session
  let req: { user: string; channel: string }
  try {
    req = consoleIdentity(session.ctx.config, as, args.configPath)
  } catch (err) {
    await session.close()
    if (!(err instanceof UserError)) throw err
    console.error(`kafka-why console: ${err.message}`)
    return 2
  }
  const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR
  // In --json mode posts beside the reply (audit channel) are printed as the chat.postMessage they would be.
  const ctx = json ? { ...session.ctx, post: async (channel: string, msg: BotMessage) => console.log(JSON.stringify({ method: 'chat.postMessage', ...messageArgs(channel, msg) })) } : session.ctx
  const show = (reply: BotMessage, buttons: Button[], color: boolean) => (json ? showJson(reply, buttons, req.channel) : showText(reply, buttons, color))
  try {
    if (oneShot !== undefined) {
      const reply = await runCommand(ctx, { ...req, text: stripSlash(oneShot) })
      console.log(show(reply, [], color))
      return reply.isError ? 1 : 0
    }
    if (session.loaded && !json) console.log(`Loaded ${session.loaded.accepted} signals from ${args.replay}${session.loaded.rejected ? ` (${session.loaded.rejected} rejected)` : ''}. Type help, or quit.`)
    const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: '/kafka ' })
    let buttons: Button[] = []
    rl.prompt()
    for await (const line of rl) {
      const text = stripSlash(line.trim())
      if (text === 'quit' || text === 'exit') break
      if (text) {
        const click = /^click\s+(\d+)$/.exec(text)
        let reply: BotMessage
        if (click) {
          const b = buttons[Number(click[1]) - 1]
          reply = b
            ? await handleAction(ctx, { ...req, actionId: b.action, value: b.value })
            : { text: `No button ${click[1]}.`, parts: [{ kind: 'section', text: `No button ${click[1]}; the last message had ${buttons.length}.` }], visibility: 'ephemeral', isError: true }
        } else reply = await runCommand(ctx, { ...req, text })
        const next: Button[] = []
        console.log(show(reply, next, color))
        if (next.length || !reply.isError) buttons = next
      }
      rl.prompt()
    }
    rl.close()
    return 0
  } finally {
    await session.close()
  }
}

function stripSlash(text: string): string {
  return text.replace(/^\/kafka\b\s*/, '')
}

/**
 * A reply as the response_url payload Bolt's `respond` sends, one line of JSON; buttons are
 * collected in order so `click <n>` works the same as in text mode.
 */
function showJson(reply: BotMessage, buttons: Button[], channel: string): string {
  for (const p of reply.parts) if (p.kind === 'actions') for (const e of p.elements) buttons.push(...(e.kind === 'button' ? [e] : e.options.map((o): Button => ({ kind: 'button', label: o.label, action: e.action, value: o.value }))))
  return JSON.stringify({ method: 'response_url', channel, ...toRespond(reply) })
}

/** Renders a reply and numbers its buttons so `click <n>` can press them. */
function showText(reply: BotMessage, buttons: Button[], color: boolean): string {
  const numbered: BotMessage = {
    ...reply,
    parts: reply.parts.map((p) =>
      p.kind === 'actions'
        ? {
            ...p,
            // A menu becomes one numbered button per option, since a terminal has no dropdown.
            elements: p.elements
              .flatMap((e): Button[] => (e.kind === 'button' ? [e] : e.options.map((o) => ({ kind: 'button', label: `${e.placeholder.replace(/…$/, '')}: ${o.label}`, action: e.action, value: o.value }))))
              .map((e) => (buttons.push(e), { ...e, label: `${buttons.length}: ${e.label}` })),
          }
        : p,
    ),
  }
  const files = reply.files?.length ? `\n(${reply.files.length} image${reply.files.length === 1 ? '' : 's'} attached in Slack; \`kafka-why digest --out chart.png\` writes the chart)` : ''
  return `${toConsole(numbered, { color })}${files}\n`
}
