import type { Signal } from '../../signals/signal.js'
import { buildEvalData } from '../../engine/eval-data.js'
import type { EvalData, EvalWindow } from '../../engine/match.js'

/** A signal on broker "1" of cluster "c" at `sec` seconds past the epoch. */
export function sig(name: string, sec: number, value?: number, labels?: Record<string, string>, broker: string | undefined = '1'): Signal {
  return { name, at: Math.round(sec * 1000), cluster: 'c', broker, value, labels, source: `test:${name}:${sec}` }
}

export function data(signals: Signal[]): EvalData {
  return buildEvalData('c', '1', signals)
}

/** Window in seconds; `now` defaults to `to`. */
export function win(fromSec: number, toSec: number, nowSec = toSec): EvalWindow {
  return { from: fromSec * 1000, to: toSec * 1000, now: nowSec * 1000 }
}
