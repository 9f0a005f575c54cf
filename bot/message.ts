/**
 * A platform-neutral chat message. Commands and alert notices produce it; bot/render turns it into
 * Block Kit for Slack or text for a terminal, so both show exactly the same content.
 * Text uses Slack's small markup subset (*bold*, _italic_, `code`, <url|label>); the console renderer
 * translates it.
 */

/** Every interactive element the bot understands; the action handlers switch on these. */
export type ActionId =
  | 'kafka_why_broker'
  | 'kafka_silence_1h'
  | 'kafka_run'
  | 'kafka_show_rule'
  | 'kafka_config_confirm'
  | 'kafka_config_approve'
  | 'kafka_config_cancel'

/** A button; its value travels to the action handler and is re-validated there. */
export type Button = {
  kind: 'button'
  label: string
  action: ActionId
  value: string
  style?: 'primary' | 'danger'
  /** A confirmation dialog before the click counts. */
  confirm?: { title: string; text: string; yes: string; no: string }
}

/** A menu (the "why another broker" picker). */
export type Select = { kind: 'select'; placeholder: string; action: ActionId; options: { label: string; value: string }[] }

/** The building blocks every renderer knows. */
export type MessagePart =
  | { kind: 'header'; text: string }
  | { kind: 'section'; text: string; fields?: string[] }
  | { kind: 'context'; text: string }
  | { kind: 'divider' }
  | { kind: 'actions'; elements: (Button | Select)[] }

/** A whole reply or post, before any platform sees it. */
export type BotMessage = {
  /** Plain-text fallback for notifications and clients that cannot show blocks. */
  text: string
  parts: MessagePart[]
  /** Only the asker sees it (errors, help) or the whole channel (diagnoses). */
  visibility: 'ephemeral' | 'channel'
  /** Replace the message a button was clicked on instead of adding a new one. */
  replaceOriginal?: boolean
  /** Images that go with the message (the digest chart); uploaded beside it in Slack. */
  files?: { filename: string; title: string; data: Buffer }[]
  /** True for error replies, so the console can set its exit code. */
  isError?: boolean
}

/** Shorthand for the common one-section reply. */
export function textMessage(text: string, visibility: BotMessage['visibility'] = 'ephemeral'): BotMessage {
  return { text: stripMarkup(text), parts: [{ kind: 'section', text }], visibility }
}

/** Slack markup → plain text, for fallbacks and terminals. */
export function stripMarkup(text: string): string {
  return text
    .replace(/<([^|<>]+)\|([^<>]+)>/g, (_, url: string, label: string) => (label === url ? url : `${label} (${url})`))
    .replace(/<(https?:[^<>]+)>/g, '$1')
    .replace(/(^|[\s(])\*([^*\n]+)\*(?=$|[\s).,:;!?])/g, '$1$2')
    .replace(/(^|[\s(])_([^_\n]+)_(?=$|[\s).,:;!?])/g, '$1$2')
}
