import { lookupSignal, type SignalKind } from '../signals/catalogue.js'
import type { Dimension } from '../signals/units.js'

/**
 * Kind and unit of any name a rule or a signal may carry, including names the catalogue does not list
 * yet (e.g. a new `config.*` key): the engine must still route and format them sensibly.
 */
export function signalKind(name: string): SignalKind {
  return lookupSignal(name)?.kind ?? (name.startsWith('config.') ? 'fact' : 'event')
}

/** Dimension of a signal's value; 'none' when unknown so values print as plain numbers. */
export function signalDimension(name: string): Dimension {
  return lookupSignal(name)?.unit ?? 'none'
}

/** True when the signal joins every broker's evaluation even if one broker reported it. */
export function isClusterWide(name: string): boolean {
  return lookupSignal(name)?.clusterWide === true
}
