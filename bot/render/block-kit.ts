import type { BotMessage, Button, MessagePart, Select } from '../message.js'
import { redactMessage } from './redact-message.js'
import { SLACK_LIMITS as L } from './slack-limits.js'

/**
 * BotMessage → Block Kit. The only place that knows Slack's block shapes; it enforces the limits and
 * says what it cut, so an incident with 300 evidence lines still posts instead of failing with
 * invalid_blocks at the worst moment.
 */

/** A Block Kit block as Slack's JSON. */
export type Block = Record<string, unknown>
/** What chat.postMessage, chat.update and response_url take: fallback text and blocks. */
export type SlackPayload = { text: string; blocks: Block[] }

/** Renders a message, redacted, truncating to Slack's limits and saying so inside the message. */
export function toBlockKit(message: BotMessage): SlackPayload {
  const msg = redactMessage(message)
  const blocks: Block[] = []
  const seenActions = new Map<string, number>()
  for (const part of msg.parts) blocks.push(renderPart(part, seenActions))
  return { text: cut(escapeFallback(msg.text), L.messageText, 'characters'), blocks: fitBlocks(blocks) }
}

function renderPart(part: MessagePart, seen: Map<string, number>): Block {
  switch (part.kind) {
    case 'header':
      return { type: 'header', text: { type: 'plain_text', text: cut(part.text, L.headerText, 'characters'), emoji: true } }
    case 'section': {
      const block: Block = { type: 'section', text: { type: 'mrkdwn', text: cut(part.text, L.sectionText, 'characters') } }
      if (part.fields?.length) {
        const fields = part.fields.slice(0, L.sectionFields).map((f) => ({ type: 'mrkdwn', text: cut(f, L.fieldText, 'characters') }))
        block.fields = fields
      }
      return block
    }
    case 'context':
      return { type: 'context', elements: [{ type: 'mrkdwn', text: cut(part.text, L.contextText, 'characters') }] }
    case 'divider':
      return { type: 'divider' }
    case 'actions':
      return { type: 'actions', elements: part.elements.slice(0, L.actionsElements).map((e) => renderElement(e, seen)) }
  }
}

function uniqueActionId(action: string, seen: Map<string, number>): string {
  const n = seen.get(action) ?? 0
  seen.set(action, n + 1)
  return n === 0 ? action : `${action}:${n}`
}

function renderElement(e: Button | Select, seen: Map<string, number>): Block {
  if (e.kind === 'select') {
    return {
      type: 'static_select',
      action_id: uniqueActionId(e.action, seen),
      placeholder: { type: 'plain_text', text: cut(e.placeholder, L.optionText, 'characters') },
      options: e.options.slice(0, L.selectOptions).map((o) => ({
        text: { type: 'plain_text', text: cut(o.label, L.optionText, 'characters') },
        value: o.value.slice(0, L.buttonValue),
      })),
    }
  }
  const button: Block = {
    type: 'button',
    action_id: uniqueActionId(e.action, seen),
    text: { type: 'plain_text', text: cut(e.label, L.buttonText, 'characters'), emoji: true },
    value: e.value.slice(0, L.buttonValue),
  }
  if (e.style) button.style = e.style
  if (e.confirm) {
    button.confirm = {
      title: { type: 'plain_text', text: cut(e.confirm.title, L.confirmTitle, 'characters') },
      text: { type: 'mrkdwn', text: cut(e.confirm.text, L.confirmText, 'characters') },
      confirm: { type: 'plain_text', text: cut(e.confirm.yes, L.confirmButton, 'characters') },
      deny: { type: 'plain_text', text: cut(e.confirm.no, L.confirmButton, 'characters') },
    }
  }
  return button
}

/**
 * Keeps at most 50 blocks: the trailing actions (the buttons are what the reader needs next) survive,
 * the middle is cut and a context block says how much.
 */
function fitBlocks(blocks: Block[]): Block[] {
  if (blocks.length <= L.blocksPerMessage) return blocks
  let tailStart = blocks.length
  while (tailStart > 0 && blocks[tailStart - 1].type === 'actions') tailStart--
  const tail = blocks.slice(tailStart).slice(-2)
  const room = L.blocksPerMessage - 1 - tail.length
  const kept = blocks.slice(0, room)
  const dropped = blocks.length - tail.length - kept.length
  const notice: Block = {
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `:scissors: ${dropped} more block${dropped === 1 ? '' : 's'} not shown (Slack allows ${L.blocksPerMessage} per message); run the same command in \`kafka-why console\` for the full text.` }],
  }
  return [...kept, notice, ...tail]
}

/** Cuts text to `max` characters, ending with a note of how much was cut. */
export function cut(text: string, max: number, unit: string): string {
  if (text.length <= max) return text
  const note = (n: number) => `… (${n} ${unit} cut)`
  let keep = max - note(text.length).length
  if (keep < 0) return text.slice(0, max)
  // Do not split a surrogate pair or leave an unclosed code span.
  if (/[\uD800-\uDBFF]/.test(text[keep - 1] ?? '')) keep--
  let head = text.slice(0, keep)
  if ((head.match(/```/g)?.length ?? 0) % 2 === 1 && keep > 3) head = `${head.slice(0, -3)}\`\`\``
  return `${head}${note(text.length - head.length)}`
}

/**
 * The fallback `text` is plain words, and Slack still reads <…> in it (notifications included): a
 * consumer group named <!channel> would ping everyone. Every '<' and '>' is escaped; an '&' is too,
 * unless it already starts one of the three entities (texts built from escaped markup).
 */
export function escapeFallback(text: string): string {
  return text.replace(/&(?!(?:amp|lt|gt);)/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Escapes the three characters Slack treats as control sequences in mrkdwn text. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
