import type { BotMessage, MessagePart } from '../message.js'
import { stripMarkup } from '../message.js'
import { redactText } from '../../secrets/redact.js'

/**
 * BotMessage → terminal text, so `kafka-why console` shows what Slack would show: the same header,
 * sections and evidence, with buttons listed as the command a click would run.
 */
export function toConsole(msg: BotMessage, opts: { color?: boolean; width?: number } = {}): string {
  const color = opts.color ?? false
  const bold = (s: string) => (color ? `\x1b[1m${s}\x1b[0m` : s)
  const dim = (s: string) => (color ? `\x1b[2m${s}\x1b[0m` : s)
  const width = opts.width ?? 80
  const lines: string[] = []
  for (const part of msg.parts) lines.push(...renderPart(part, { bold, dim, width }))
  // The terminal is a way out like Slack: the same redaction.
  return redactText(lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd())
}

type Style = { bold(s: string): string; dim(s: string): string; width: number }

function renderPart(part: MessagePart, st: Style): string[] {
  switch (part.kind) {
    case 'header': {
      const text = plain(part.text)
      return [st.bold(text), '='.repeat(Math.min(st.width, [...text].length))]
    }
    case 'section':
      return [plain(part.text), ...(part.fields ?? []).map((f) => `  ${plain(f).replace(/\n/g, ': ')}`), '']
    case 'context':
      return [st.dim(plain(part.text)), '']
    case 'divider':
      return ['-'.repeat(Math.min(st.width, 40))]
    case 'actions':
      return part.elements.map((e) =>
        e.kind === 'button'
          ? `  [${e.label}] ${st.dim(describeAction(e.action, e.value))}`
          : `  [${e.placeholder}: ${e.options.map((o) => o.label).join(' | ')}]`,
      )
  }
}

function describeAction(action: string, value: string): string {
  switch (action) {
    case 'kafka_run':
      return `→ ${value}`
    case 'kafka_show_rule':
      return `→ explain ${value}`
    case 'kafka_why_broker':
      return `→ why ${value}`
    case 'kafka_silence_1h': {
      try {
        return `→ silence ${(JSON.parse(value) as { matcher: string }).matcher} 1h`
      } catch {
        return ''
      }
    }
    default:
      return ''
  }
}

/** The emoji codes the renderers use, as the characters a terminal can show. */
const EMOJI: Record<string, string> = {
  ':red_circle:': '🔴',
  ':large_orange_circle:': '🟠',
  ':large_blue_circle:': '🔵',
  ':white_check_mark:': '✅',
  ':warning:': '⚠️ ',
  ':bulb:': '💡',
  ':mute:': '🔇',
  ':memo:': '📝',
  ':scissors:': '✂️ ',
  ':arrows_counterclockwise:': '🔄',
  ':hourglass:': '⏳',
  ':no_entry_sign:': '🚫',
}

function plain(text: string): string {
  return stripMarkup(text)
    .replace(/:[a-z_]+:/g, (code) => EMOJI[code] ?? code).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').replace(/```\n?/g, '').replace(/`([^`]*)`/g, '$1')
}
