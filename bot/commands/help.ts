import type { BotMessage } from '../message.js'
import { USAGE, type Verb } from '../parse-command.js'
import { UserError } from '../errors.js'
import { escapeMrkdwn } from '../render/block-kit.js'

/**
 * Examples shown by `help`, per command. Each one runs as printed against the shipped rules and the
 * recorded incident the console loads by default (broker 1), and a test holds them to that, so a
 * reader can paste any of them; commands that read the admin API need a cluster connection.
 */
export const HELP_EXAMPLES: Record<Verb, string[]> = {
  why: ['why 1', 'why 1 2h'],
  status: ['status'],
  digest: ['digest'],
  rules: ['rules', 'rules stw_pause_session_expiry'],
  explain: ['explain stw_pause_session_expiry'],
  describe: ['describe broker 1', 'describe topic __consumer_offsets'],
  config: ['config broker 1'],
  silence: ['silence stw_pause_session_expiry 2h'],
  unsilence: ['unsilence stw_pause_session_expiry'],
  help: ['help why'],
}

/** A usage line without its inline "e.g." (those are replaced by the checked examples). */
function usageLine(verb: Verb): string {
  return USAGE[verb].replace(/,? e\.g\. .*$/, '')
}

function examplesOf(verb: Verb): string {
  return HELP_EXAMPLES[verb].map((e) => `\`/kafka ${escapeMrkdwn(e)}\``).join(', ')
}

/** `/kafka help [command]`: the command list, or one command's usage, each with examples that work as printed. */
export function help(topic?: string): BotMessage {
  if (topic !== undefined) {
    if (!Object.hasOwn(USAGE, topic)) throw new UserError(`No command '${topic}'. \`/kafka help\` lists them all.`)
    const verb = topic as Verb
    const line = escapeMrkdwn(usageLine(verb))
    return {
      text: `/kafka ${line}`,
      parts: [
        { kind: 'section', text: `\`/kafka ${line.replace(/ {2,}/, '`  ')}` },
        { kind: 'context', text: `e.g. ${examplesOf(verb)}` },
      ],
      visibility: 'ephemeral',
    }
  }
  const verbs = Object.keys(USAGE) as Verb[]
  const lines = verbs.map((v) => `\`/kafka ${escapeMrkdwn(usageLine(v)).replace(/ {2,}/, '`  ')}`)
  return {
    text: 'kafka-why commands: why, status, digest, rules, explain, describe, config, silence, help',
    parts: [
      { kind: 'header', text: 'kafka-why commands' },
      { kind: 'section', text: lines.join('\n') },
      { kind: 'section', text: `*Examples*\n${verbs.map((v) => `• ${examplesOf(v)}`).join('\n')}` },
      { kind: 'context', text: 'Prefix a broker, topic or group with `cluster:` to pick a cluster; otherwise the channel\'s cluster is used. Changing configuration needs an allowed user in an allowed channel.' },
    ],
    visibility: 'ephemeral',
  }
}
