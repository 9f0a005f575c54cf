import { stat } from 'node:fs/promises'
import { findRuleFiles, resolveRulesPath } from '../rule-files/load-rules.js'
import { UsageError } from './usage-error.js'

/**
 * Every command that reads rules (lint, fmt, test --rules, why, replay, console, corpus, ci) checks
 * the paths it was given the same way before reading them, so a typo in CI fails instead of passing
 * over "0 files, 0 rules": a path that does not exist, or a directory with no *.rules file under it,
 * is a UsageError (one line naming the path as given, exit code 2).
 */

/** Throws a UsageError for the first named rules path that is missing or holds no *.rules file. */
export async function checkRulePaths(paths: readonly string[], option?: string): Promise<void> {
  const where = option ? `${option}: ` : ''
  for (const given of paths) {
    const resolved = resolveRulesPath(given)
    let directory: boolean
    try {
      directory = (await stat(resolved)).isDirectory()
    } catch (err) {
      throw new UsageError(`${where}${describeMissing(given, err)}`)
    }
    if (directory && (await findRuleFiles([resolved])).length === 0) throw new UsageError(`${where}no *.rules files in ${given}`)
  }
}

/** "no such file or directory: rules/x" for ENOENT, else the code (EACCES…) with the path as given. */
export function describeMissing(given: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR') return `no such file or directory: ${given}`
  return `cannot read ${given}: ${code ?? (err as Error).message}`
}
