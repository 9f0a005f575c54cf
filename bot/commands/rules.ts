import { signalsOfRule } from '../../dsl/signals-of-rule.js'
import { lookupSignal } from '../../signals/catalogue.js'
import type { BotContext } from '../context.js'
import type { BotMessage, MessagePart } from '../message.js'
import { escapeMrkdwn } from '../render/block-kit.js'
import { findRule } from './shared.js'

/** `/kafka rules [name]`: the loaded rule pack at a glance, or one rule. */
export function rules(ctx: BotContext, args: { name?: string }): BotMessage {
  if (args.name !== undefined) return explain(ctx, { rule: args.name })
  const all = ctx.rules.rules
  const lines = all.map((r) => `• \`${escapeMrkdwn(r.name ?? r.id)}\` ${r.severity}: ${escapeMrkdwn(r.cause.raw)}`)
  const parts: MessagePart[] = [{ kind: 'header', text: `${all.length} rules loaded` }]
  // One section per 25 rules keeps each under Slack's section limit.
  for (let i = 0; i < lines.length; i += 25) parts.push({ kind: 'section', text: lines.slice(i, i + 25).join('\n') })
  if (!all.length) parts.push({ kind: 'section', text: 'No rules are loaded. Check the `rules` paths in the bot configuration.' })
  if (ctx.rules.problems.length) parts.push({ kind: 'context', text: `${ctx.rules.problems.length} rule errors at load: ${escapeMrkdwn(ctx.rules.problems.slice(0, 3).join('; '))}` })
  return { text: `${all.length} rules: ${all.map((r) => r.name ?? r.id).join(', ')}`, parts, visibility: 'ephemeral' }
}

/** `/kafka explain <rule>`: what a rule is for, its source, and what each signal it reads means. */
export function explain(ctx: BotContext, args: { rule: string }): BotMessage {
  const rule = findRule(ctx, args.rule)
  const parts: MessagePart[] = [{ kind: 'header', text: `Rule ${rule.name ?? rule.id}` }]
  if (rule.doc.length) parts.push({ kind: 'section', text: escapeMrkdwn(rule.doc.join('\n')) })
  const source = ctx.rules.sourceOf(rule)
  if (source) parts.push({ kind: 'section', text: `\`\`\`\n${escapeMrkdwn(source.trim().replace(/```/g, "'''"))}\n\`\`\`` })
  parts.push({
    kind: 'section',
    text: [
      `*Severity:* ${rule.severity}`,
      `*Cause:* ${escapeMrkdwn(rule.cause.raw)}`,
      rule.advise ? `*Advice:* ${escapeMrkdwn(rule.advise.raw)}` : '',
      rule.explains.length ? `*Explains:* ${rule.explains.map((e) => `\`${e.signal}\``).join(', ')}` : '',
      rule.run.length ? `*Offers:* ${rule.run.map((r) => `\`${escapeMrkdwn(r.raw)}\``).join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
  })
  const signals = signalsOfRule(rule)
  if (signals.length) {
    parts.push({ kind: 'section', text: `*Signals it reads:*\n${signals.map((s) => `• \`${s}\`: ${escapeMrkdwn(lookupSignal(s)?.doc ?? 'not in the signal catalogue')}`).join('\n')}` })
  }
  parts.push({ kind: 'context', text: `Defined in ${escapeMrkdwn(rule.file)}:${rule.span.startLine}` })
  return { text: `Rule ${rule.name ?? rule.id}: ${rule.cause.raw}`, parts, visibility: 'ephemeral' }
}
