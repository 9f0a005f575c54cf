import { readdirSync, readFileSync } from 'node:fs'
import type { Cluster, Redis } from 'ioredis'

/**
 * Loads the documented Lua files of engine/store/lua/ and registers each as an ioredis command.
 * The file name says the command and its key count (`alert-transition-3.lua` → `alertTransition`
 * with 3 keys; `-n.lua`: any number of keys, given as the command's first argument); ioredis sends
 * EVALSHA and falls back to EVAL when Redis has not seen the script.
 * This is the one place in engine/ that reads a file: the scripts ship beside the code.
 */

/** The scripted commands RedisStore calls, as ioredis exposes them on a client or pipeline. */
export type ScriptCommands = {
  alertTransition(alertKey: string, indexKey: string, openIndexKey: string, expected: string, fingerprint: string, ...fieldValues: string[]): Promise<number>
  alertPrune(alertKey: string, indexKey: string, openIndexKey: string, cut: number, fingerprint: string): Promise<number>
  brokerAdmit(clusterBrokersKey: string, cap: number, ...brokers: string[]): Promise<number[]>
  scopeDrop(namesKey: string, factsKey: string): Promise<number>
  factExpire(factsKey: string, cut: number, ...fields: string[]): Promise<number>
  alertUpdate(alertKey: string, ...fieldValues: string[]): Promise<number>
  factSet(factsKey: string, field: string, at: number, value: string): Promise<number>
  timeTrim(signalKey: string, namesKey: string, before: number, name: string, most: number): Promise<number>
  lockAcquire(lockKey: string, owner: string, ttlMs: number): Promise<number>
  lockRelease(lockKey: string, owner: string): Promise<number>
  pendingTransition(pendingKey: string, expected: string, state: string, record: string, ttlMs: number): Promise<number>
  silencesActive(silencesKey: string, expiryKey: string, now: number): Promise<(string | null)[]>
  seriesChanges(keyCount: number, ...keysThenRangesThenPage: (string | number)[]): Promise<[number, string, string[]][]>
  seriesPage(signalKey: string, after: string, to: number, page: number): Promise<[number, string[]]>
}

const SCRIPT_FILE = /^([a-z][a-z0-9-]*)-(\d+|n)\.lua$/

const camelCase = (kebab: string) => kebab.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())

/** Registers every script of the lua directory on a client; returns the command names defined. */
export function defineScripts(redis: Redis | Cluster, dir: URL = new URL('./lua/', import.meta.url)): string[] {
  const defined: string[] = []
  for (const file of readdirSync(dir).sort()) {
    const m = SCRIPT_FILE.exec(file)
    if (!m) continue
    const name = camelCase(m[1])
    redis.defineCommand(name, { ...(m[2] === 'n' ? {} : { numberOfKeys: Number(m[2]) }), lua: readFileSync(new URL(file, dir), 'utf8') })
    defined.push(name)
  }
  return defined
}
