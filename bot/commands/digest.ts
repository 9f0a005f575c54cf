import type { TopLevelSpec } from 'vega-lite'
import type { BotContext, CommandRequest } from '../context.js'
import { buildDigest } from '../digest/build-digest.js'
import { chartSpec } from '../digest/chart.js'
import { renderChartPng } from '../digest/render-chart.js'
import type { BotMessage } from '../message.js'
import { renderDigest } from '../render/digest.js'
import { resolveCluster } from './shared.js'

/** How far back the digest looks. */
export const DIGEST_WINDOW_MS = 24 * 3_600_000

/** A rendered digest plus its chart (PNG) and the chart's Vega-Lite spec, ready for Slack or a terminal. */
export type DigestOutput = { message: BotMessage; chart: Buffer; spec: TopLevelSpec }

/** Builds, renders and charts one cluster's digest ending at `now`. */
export async function digestFor(ctx: BotContext, cluster: string, now: number): Promise<DigestOutput> {
  const severity = new Map(ctx.rules.rules.map((r) => [r.name ?? r.id, r.severity as string]))
  const report = await buildDigest(ctx.store, { cluster, from: now - DIGEST_WINDOW_MS, to: now, now, severityOf: (id) => severity.get(id) })
  const spec = chartSpec(report.chart, report.alertBands, { from: report.from, to: report.to, timeZone: ctx.config.timeZone, cluster })
  const chart = await renderChartPng(spec)
  return { message: renderDigest(report, { timeZone: ctx.config.timeZone }), chart, spec }
}

/** `/kafka digest [cluster]`: the daily digest on demand. */
export async function digest(ctx: BotContext, req: CommandRequest, args: { cluster?: string }): Promise<BotMessage> {
  const cluster = resolveCluster(ctx, req.channel, args.cluster)
  const out = await digestFor(ctx, cluster.name, ctx.now())
  return { ...out.message, files: [{ filename: `kafka-digest-${cluster.name}.png`, title: `Kafka digest ${cluster.name}`, data: out.chart }] }
}
