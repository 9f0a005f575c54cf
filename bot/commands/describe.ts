import type { BotContext, CommandRequest } from '../context.js'
import type { BotMessage, MessagePart } from '../message.js'
import { escapeMrkdwn } from '../render/block-kit.js'
import type { TargetKind } from '../parse-command.js'
import { adminCall, resolveCluster } from './shared.js'

/** `/kafka describe topic|group|broker <x>`: read-only admin API views, open to everyone. */
export async function describe(ctx: BotContext, req: CommandRequest, args: { kind: TargetKind; cluster?: string; name: string }): Promise<BotMessage> {
  const cluster = resolveCluster(ctx, req.channel, args.cluster)
  const admin = await ctx.admin(cluster.name)
  if (args.kind === 'topic') {
    const t = await adminCall(`Topic ${args.name} on ${cluster.name}`, () => admin.describeTopic(args.name))
    const urp = t.partitions.filter((p) => p.isr.length < p.replicas.length)
    const offline = t.partitions.filter((p) => p.offline)
    const rows = t.partitions
      .slice(0, 60)
      .map((p) => `${String(p.partition).padStart(4)}  leader ${String(p.leader).padEnd(5)} replicas ${p.replicas.join(',').padEnd(12)} isr ${p.isr.join(',')}${p.offline ? '  OFFLINE' : p.isr.length < p.replicas.length ? '  under-replicated' : ''}`)
    if (t.partitions.length > 60) rows.push(`… ${t.partitions.length - 60} more partitions`)
    const overrides = Object.entries(t.configs).filter(([, c]) => !c.isDefault)
    const parts: MessagePart[] = [
      { kind: 'header', text: `Topic ${t.name} (${cluster.name})` },
      { kind: 'section', text: `${t.partitions.length} partitions · ${urp.length} under-replicated · ${offline.length} offline` },
      { kind: 'section', text: `\`\`\`\n${escapeMrkdwn(rows.join('\n'))}\n\`\`\`` },
      { kind: 'context', text: overrides.length ? `Overrides: ${overrides.map(([k, c]) => `\`${escapeMrkdwn(k)}=${escapeMrkdwn(String(c.value))}\``).join(', ')}` : 'No topic-level overrides.' },
    ]
    return { text: `Topic ${t.name}: ${t.partitions.length} partitions, ${urp.length} under-replicated, ${offline.length} offline`, parts, visibility: 'channel' }
  }
  if (args.kind === 'group') {
    const g = await adminCall(`Consumer group ${args.name} on ${cluster.name}`, () => admin.describeGroup(args.name))
    const members = g.members.slice(0, 40).map((m) => `• \`${escapeMrkdwn(m.clientId)}\` ${escapeMrkdwn(m.host)} (${escapeMrkdwn(m.memberId)})`)
    if (g.members.length > 40) members.push(`• … ${g.members.length - 40} more`)
    const parts: MessagePart[] = [
      { kind: 'header', text: `Group ${g.groupId} (${cluster.name})` },
      { kind: 'section', text: `State *${escapeMrkdwn(g.state)}* · protocol ${escapeMrkdwn(g.protocol || '–')} · ${g.members.length} members${g.coordinator !== undefined ? ` · coordinator broker ${g.coordinator}` : ''}` },
    ]
    if (members.length) parts.push({ kind: 'section', text: members.join('\n') })
    return { text: `Group ${g.groupId}: ${g.state}, ${g.members.length} members`, parts, visibility: 'channel' }
  }
  const b = await adminCall(`Broker ${args.name} on ${cluster.name}`, () => admin.describeBroker(Number(args.name)))
  const overrides = Object.entries(b.configs).filter(([, c]) => !c.isDefault)
  return {
    text: `Broker ${b.id}: ${b.host}:${b.port}${b.isController ? ' (controller)' : ''}`,
    parts: [
      { kind: 'header', text: `Broker ${b.id} (${cluster.name})` },
      { kind: 'section', text: `${escapeMrkdwn(b.host)}:${b.port}${b.rack ? ` · rack ${escapeMrkdwn(b.rack)}` : ''}${b.isController ? ' · *active controller*' : ''} · ${overrides.length} non-default configs` },
    ],
    visibility: 'channel',
  }
}
