import type { AlertEvent } from '../engine/alerts.js'

/**
 * The ids a log pipeline groups an alert's lines by: the alert's fingerprint as `alertId` (the same
 * value `/kafka silence` takes), its rule, cluster and broker. serve's alert loop and the bot's
 * notifier both log with them, so one query finds an alert from firing to its Slack message.
 */
export function alertFields(e: AlertEvent): Record<string, string> {
  const a = e.alert
  return { alertId: a.fingerprint, rule: a.ruleId, cluster: a.cluster, ...(a.broker === undefined ? {} : { broker: a.broker }) }
}
