import type { BotMessage } from '../message.js'
import { USAGE, type Verb } from '../parse-command.js'
import { UserError } from '../errors.js'
import { escapeMrkdwn } from '../render/block-kit.js'

/** `/kafka help [command]`: the command list, or one command's usage. */
export function help(topic?: string): BotMessage {
  if (topic !== undefined) {
    if (!(topic in USAGE)) throw new UserError(`No command '${topic}'. \`/kafka help\` lists them all.`)
    const line = escapeMrkdwn(USAGE[topic as Verb])
    return { text: `/kafka ${line}`, parts: [{ kind: 'section', text: `\`/kafka ${line.replace(/ {2,}/, '`  ')}` }], visibility: 'ephemeral' }
  }
  const lines = Object.values(USAGE).map((l) => `\`/kafka ${escapeMrkdwn(l).replace(/ {2,}/, '`  ')}`)
  return {
    text: 'kafka-why commands: why, status, digest, rules, explain, describe, config, silence, help',
    parts: [
      { kind: 'header', text: 'kafka-why commands' },
      { kind: 'section', text: lines.join('\n') },
      { kind: 'context', text: 'Prefix a broker, topic or group with `cluster:` to pick a cluster; otherwise the channel\'s cluster is used. Changing configuration needs an allowed user in an allowed channel.' },
    ],
    visibility: 'ephemeral',
  }
}
