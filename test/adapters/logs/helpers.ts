import { parseLogText } from '../../../adapters/logs/parser.js'
import type { LogSourceConfig } from '../../../adapters/logs/types.js'

/** Parses real log text under a test source config and returns the signals and counters. */
export function parse(text: string, cfg: Partial<LogSourceConfig> = {}) {
  return parseLogText(text, { path: 'test.log', cluster: 'c1', ...cfg })
}

/** The parts of a signal a table row asserts on. */
export function brief(s: { name: string; value?: number; labels?: Record<string, string>; broker?: string }) {
  const out: Record<string, unknown> = { name: s.name }
  if (s.value !== undefined) out.value = s.value
  if (s.labels) out.labels = s.labels
  if (s.broker !== undefined) out.broker = s.broker
  return out
}
