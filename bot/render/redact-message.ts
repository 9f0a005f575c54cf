import { redactText } from '../../secrets/redact.js'
import type { BotMessage, Button, MessagePart, Select } from '../message.js'

/**
 * Every text of a message through the one redaction (secrets/redact.ts), applied where a message
 * leaves the process — Block Kit for Slack, text for the console — so a password that reached a
 * diagnosis, an alert, a digest, an audit post or an error reply by any road is never shown.
 * Button values are ids the bot itself made and are left as they are.
 */
export function redactMessage(msg: BotMessage): BotMessage {
  return { ...msg, text: redactText(msg.text), parts: msg.parts.map(redactPart) }
}

function redactPart(p: MessagePart): MessagePart {
  switch (p.kind) {
    case 'section':
      return { ...p, text: redactText(p.text), ...(p.fields ? { fields: p.fields.map(redactText) } : {}) }
    case 'header':
    case 'context':
      return { ...p, text: redactText(p.text) }
    case 'actions':
      return { ...p, elements: p.elements.map(redactElement) }
    case 'divider':
      return p
  }
}

function redactElement(e: Button | Select): Button | Select {
  if (e.kind === 'select') return { ...e, placeholder: redactText(e.placeholder), options: e.options.map((o) => ({ ...o, label: redactText(o.label) })) }
  return {
    ...e,
    label: redactText(e.label),
    ...(e.confirm ? { confirm: { ...e.confirm, title: redactText(e.confirm.title), text: redactText(e.confirm.text) } } : {}),
  }
}
