import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

/**
 * What a pull request changed, read from git: the files changed since the merge base with the base
 * ref (renames followed), and any file's text at that base. Git is run as a program, so a CI image
 * needs nothing but git.
 */

const exec = promisify(execFile)

/** One changed file; `from` is the old path of a rename or copy. */
export type ChangedFile = { status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type-changed'; path: string; from?: string }

/** A git failure (unknown ref, not a repository): its message is what the user reads. */
export class GitError extends Error {}

async function git(cwd: string, args: string[]): Promise<string> {
  try {
    const r = await exec('git', args, { cwd, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' })
    return r.stdout
  } catch (err) {
    const e = err as { stderr?: string; message: string; code?: string }
    if (e.code === 'ENOENT') throw new GitError('git is not installed (kafka-why ci reads the changes from git)')
    throw new GitError(`git ${args.join(' ')}: ${(e.stderr ?? e.message).trim().split('\n')[0]}`)
  }
}

/** The commit both the base ref and HEAD descend from: the pull request's own changes start there. */
export async function mergeBase(cwd: string, baseRef: string): Promise<string> {
  await git(cwd, ['rev-parse', '--verify', '--quiet', `${baseRef}^{commit}`]).catch(() => {
    throw new GitError(`unknown git ref '${baseRef}' (in CI, fetch it first: git fetch origin ${baseRef.replace(/^origin\//, '')})`)
  })
  return (await git(cwd, ['merge-base', baseRef, 'HEAD'])).trim()
}

const STATUS: Record<string, ChangedFile['status']> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'type-changed' }

/** Files changed between `base` and the working tree (committed or not), renames detected (-M). */
export async function changedFiles(cwd: string, base: string): Promise<ChangedFile[]> {
  const out = await git(cwd, ['diff', '--name-status', '-M', '-z', base, '--'])
  const fields = out.split('\0')
  const files: ChangedFile[] = []
  for (let i = 0; i < fields.length - 1; ) {
    const code = fields[i++]
    const status = STATUS[code[0]]
    if (!status) continue
    if (status === 'renamed' || status === 'copied') {
      const from = fields[i++]
      files.push({ status, path: fields[i++], from })
    } else files.push({ status, path: fields[i++] })
  }
  return files
}

/** Every file under `dir` at `commit` whose name ends in `suffix`. */
export async function filesAt(cwd: string, commit: string, dir: string, suffix: string): Promise<string[]> {
  const prefix = dir.replace(/\/+$/, '')
  const out = await git(cwd, ['ls-tree', '-r', '-z', '--name-only', commit, '--', prefix === '.' ? '' : prefix])
  return out.split('\0').filter((p) => p.endsWith(suffix))
}

/** A file's text at `commit` (`git show commit:path`). */
export async function showFile(cwd: string, commit: string, path: string): Promise<string> {
  return git(cwd, ['show', `${commit}:${path}`])
}

/** Paths as git prints them: relative to the repository root. The directory to run git in is its root. */
export async function repoRoot(cwd: string): Promise<string> {
  return (await git(cwd, ['rev-parse', '--show-toplevel'])).trim()
}
