import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { firstReason, FaultUnavailable, needsCommand, needsRoot, runOrThrow } from './requirements.js'

/** Why loopback traffic of one user cannot be dropped here (iptables with the owner match), or undefined. */
export function userTrafficDropUnavailable(): string | undefined {
  const matches = existsSync('/proc/net/ip_tables_matches') ? readFileSync('/proc/net/ip_tables_matches', 'utf8') : ''
  return firstReason(
    needsRoot('dropping a broker\'s packets'),
    needsCommand('iptables', 'iptables'),
    /^owner$/m.test(matches) || matches === '' ? undefined : 'the kernel has no iptables owner match (xt_owner)',
  )
}

/** Why one user's loopback packets cannot be dropped at random (iptables' statistic match), or undefined. */
export function randomDropUnavailable(): string | undefined {
  const matches = existsSync('/proc/net/ip_tables_matches') ? readFileSync('/proc/net/ip_tables_matches', 'utf8') : ''
  return firstReason(
    userTrafficDropUnavailable(),
    /^statistic$/m.test(matches) || matches === '' ? undefined : 'the kernel has no iptables statistic match (xt_statistic)',
  )
}

/**
 * Drops, on the loopback interface, the TCP packets that processes of one user send to the given
 * ports: a broker run as that user is cut off from those services (ZooKeeper, its peers) while every
 * other process on the host still reaches them. With a probability, each packet is dropped at random
 * with it (the statistic match): a lossy path rather than a cut one. The rules carry a unique comment and undo() deletes
 * exactly them; it is idempotent.
 */
export function dropUserTraffic(uid: number, dports: number[], options: { probability?: number } = {}): () => void {
  const p = options.probability
  if (p !== undefined && !(p > 0 && p < 1)) throw new Error(`drop probability must be between 0 and 1, got ${p}`)
  const reason = p === undefined ? userTrafficDropUnavailable() : randomDropUnavailable()
  if (reason) throw new FaultUnavailable(reason)
  const random = p === undefined ? [] : ['-m', 'statistic', '--mode', 'random', '--probability', String(p)]
  const tag = `kafka-why-lab-${randomBytes(4).toString('hex')}`
  const rules = dports.map((port) => ['OUTPUT', '-o', 'lo', '-p', 'tcp', '--dport', String(port), '-m', 'owner', '--uid-owner', String(uid), ...random, '-m', 'comment', '--comment', tag, '-j', 'DROP'])
  const added: string[][] = []
  const undo = () => {
    for (const r of added.splice(0)) runOrThrow('iptables', ['-D', ...r], 'removing a lab packet filter')
  }
  try {
    for (const r of rules) {
      runOrThrow('iptables', ['-A', ...r], 'adding a lab packet filter')
      added.push(r)
    }
  } catch (err) {
    undo()
    throw err
  }
  return undo
}

/** What a scenario that drops one broker's packets needs, as its `requires` and `unavailable`. */
export const USER_TRAFFIC_FAULT = {
  requires: 'root, iptables with the owner match (broker run as nobody)',
  unavailable: (): string | undefined => firstReason(userTrafficDropUnavailable(), needsCommand('setpriv', 'util-linux')),
}
