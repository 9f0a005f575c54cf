import { ArchiveLimitError } from '../../adapters/logs/open-input.js'
import { UploadBudgetError, type UploadBudget } from '../../adapters/uploads-worker/read-off-thread.js'
import type { UploadCut, UploadedLog } from '../../adapters/uploaded-logs.js'
import type { BotContext } from '../context.js'
import { readUploadsInMemory } from '../engine-bridge.js'
import { UserError } from '../errors.js'
import type { BotMessage } from '../message.js'
import { redactMessage } from '../render/redact-message.js'
import { escapeMrkdwn } from '../render/block-kit.js'
import { renderDiagnosis } from '../render/diagnosis.js'
import { formatWindow } from '../render/time.js'
import { clusterForChannel } from '../config.js'
import { unreadInput } from '../../adapters/unread-input.js'
import { describeUnread } from '../../engine/unread-input.js'
import type { Store } from '../../engine/store/store.js'
import { renderClusterDiagnosis } from '../render/cluster-diagnosis.js'
import { diagnoseClusterWith } from './why.js'
import { readDataEnds } from '../../engine/data-span.js'

/**
 * `why` over logs shared in a thread: the uploads are read into a store of their own (never the
 * team's), the broker is the one asked or the one the logs hold, the window is the logs' own span,
 * and the answer is the same ranked diagnosis `/kafka why` gives — minus the buttons, which would act
 * on the live clusters rather than on these logs.
 */
export async function whyUploaded(ctx: BotContext, where: { channel: string }, uploads: readonly UploadedLog[], args: { broker?: string } = {}, budget?: UploadBudget): Promise<BotMessage> {
  if (uploads.length === 0) {
    throw new UserError('I found no log here. Share a server.log or gc.log (a .gz, .zip or .tar.gz bundle works too), or paste the lines in a ``` code block, then mention me with `why` in that thread.')
  }
  const cluster = clusterForChannel(ctx.config, where.channel)?.name ?? 'uploaded'
  let loaded
  try {
    loaded = await readUploadsInMemory(uploads, { cluster, broker: args.broker }, budget)
  } catch (err) {
    if (err instanceof ArchiveLimitError) throw new UserError(`${err.message}. Nothing was diagnosed.`)
    if (err instanceof UploadBudgetError) throw new UserError(`${err.message} Nothing was diagnosed.`)
    throw err
  }
  const { store, read } = loaded
  const names = uploads.map((u) => u.name).join(', ')
  if (read.stats.files.length === 0) {
    const why = read.stats.skipped.map((s) => `${s.file} (${s.reason})`).join(', ')
    throw new UserError(`Nothing in ${names} is a log I can read${why ? `: ${why}` : ''}.`)
  }
  const summary = readSummary(read.stats.logs.lines, read.stats.files.length, read.stats.skipped, read.stats.zone)
  const unread = unreadInput(read.stats)
  let broker = args.broker
  if (broker === undefined) {
    // Several brokers' logs (a support bundle) are a cluster event: the cluster's answer, origin first.
    if (read.brokers.length > 1 && read.window) return clusterAnswer(ctx, store, cluster, read.brokers, read.window, names, summary, unread, read.cut)
    broker = read.brokers[0]
  }
  if (broker === undefined || !read.window || !read.brokers.includes(broker)) {
    const span = read.window ? formatWindow(read.window.from, read.window.to, ctx.config.timeZone) : 'no timestamps read'
    // Healthy only when all of it was read: otherwise what went unread is the answer's first line.
    const answer = unread
      ? `${describeUnread(unread)}. No problem found in the rest (${summary}, ${span}), which says nothing about what was not read.`
      : read.cut
        ? `${describeCut(read.cut)} No problem found in the ${read.cut.kept.toLocaleString('en-US')} kept (${summary}, ${span}), which says nothing about the rest.`
        : `Nothing abnormal in ${summary} (${span}).`
    return redactMessage({ text: answer, parts: [{ kind: 'section', text: escapeMrkdwn(answer) }], visibility: 'channel' })
  }
  // Inside the broker's own data: logs of it that stop before the rest are answered at their end.
  const dataEnds = await readDataEnds(store, cluster, read.window.from, read.window.to)
  const end = dataEnds.clamp(cluster, broker, read.window.to)
  const d = await ctx.diagnose(ctx.rules.rules, store, { cluster, broker, from: Math.min(read.window.from, end), to: end, now: end, dataEnds })
  if (unread) d.unread = unread
  const msg = renderDiagnosis(d, { timeZone: ctx.config.timeZone, otherBrokers: [] })
  const parts = msg.parts.filter((p) => p.kind !== 'actions')
  parts.splice(Math.min(2, parts.length), 0, { kind: 'context', text: `Read from the shared ${escapeMrkdwn(names)}: ${escapeMrkdwn(summary)}. Diagnosed on their own, not with this cluster's live data.` }, ...cutNote(read.cut))
  // Shared logs were never through an ingest that scrubs them: a password in a config dump or a token
  // in a file name is redacted before it reaches the channel.
  return redactMessage({ ...msg, parts, visibility: 'channel' })
}

/** The cluster's answer over the shared logs' own store and span, without the live clusters' buttons. */
async function clusterAnswer(
  ctx: BotContext,
  store: Store,
  cluster: string,
  brokers: readonly string[],
  window: { from: number; to: number },
  names: string,
  summary: string,
  unread: ReturnType<typeof unreadInput>,
  cut: UploadCut | undefined,
): Promise<BotMessage> {
  const dataEnds = await readDataEnds(store, cluster, window.from, window.to)
  const answer = await diagnoseClusterWith(ctx, store, { cluster, brokers, from: window.from, to: window.to, now: window.to, dataEnds })
  const msg = renderClusterDiagnosis(answer, { timeZone: ctx.config.timeZone, brokerPicker: false })
  const parts = msg.parts.filter((p) => p.kind !== 'actions')
  const note = `Read from the shared ${escapeMrkdwn(names)}: ${escapeMrkdwn(summary)}. Diagnosed on their own, not with this cluster's live data; mention me with \`why ${brokers[0]}\` for one broker's whole answer.`
  parts.splice(Math.min(2, parts.length), 0, { kind: 'context', text: note }, ...(unread ? [{ kind: 'section' as const, text: `:warning: ${escapeMrkdwn(describeUnread(unread))}` }] : []), ...cutNote(cut))
  return redactMessage({ ...msg, parts, visibility: 'channel' })
}

/** "412 lines from 2 files, offset-less times read as -04:00 (the offset gc.log carries)". */
function readSummary(lines: number, files: number, skipped: { file: string; reason: string }[], zone: { zone: string; why: string } | undefined): string {
  let s = `${lines} lines from ${files} file${files === 1 ? '' : 's'}`
  if (zone) s += `, offset-less times read as ${zone.zone} (${zone.why.replace(/; pass --tz.*$/, '')})`
  if (skipped.length) s += `; skipped ${skipped.map((k) => `${k.file} (${k.reason})`).join(', ')}`
  return s
}

/** "Only the first 200,000 signals of these logs were kept: 31,207 more were left out, past …". */
function describeCut(cut: UploadCut): string {
  const limit = cut.limit === 'signals' ? `the ${cut.kept.toLocaleString('en-US')} signals` : 'the amount of evidence text'
  return `Only the first ${cut.kept.toLocaleString('en-US')} signals of these logs were kept: ${cut.signals.toLocaleString('en-US')} more were left out, past ${limit} one answer over shared logs holds. Share the part around the incident for a whole answer.`
}

/** The warning an answer over cut logs carries, right under what was read. */
function cutNote(cut: UploadCut | undefined): { kind: 'section'; text: string }[] {
  return cut ? [{ kind: 'section', text: `:warning: ${escapeMrkdwn(describeCut(cut))}` }] : []
}
