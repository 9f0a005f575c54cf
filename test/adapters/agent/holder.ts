/**
 * For the agent tests: a real process holding open descriptors and file mappings under a chosen open-files
 * limit, whose /proc the agent then reads.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** Scratch directory for holders' files and pid files. */
export const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-agent-'))
const children: ChildProcess[] = []

/** Kills every holder started and removes their files. */
export function cleanupHolders(): void {
  for (const c of children) c.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
}

/**
 * A real process holding `files` open descriptors and `maps` file mappings, under an open-files
 * limit of `nofile`, until its stdin closes.
 */
export async function holder(files: number, maps: number, nofile = 4096): Promise<ChildProcess> {
  const script = `
import mmap, os, sys
held = []
for i in range(${files}):
    held.append(open(os.path.join(sys.argv[1], "fd-%d" % i), "w"))
for i in range(${maps}):
    p = os.path.join(sys.argv[1], "map-%d" % i)
    with open(p, "wb") as f:
        f.write(b"x" * 4096)
    f = open(p, "r+b")
    held.append(mmap.mmap(f.fileno(), 4096))
    f.close()
print("ready", flush=True)
sys.stdin.read()
`
  const sub = mkdtempSync(path.join(dir, 'h-'))
  const child = spawn('sh', ['-c', `ulimit -n ${nofile} && exec python3 -c "$0" "$1"`, script, sub], { stdio: ['pipe', 'pipe', 'inherit'] })
  children.push(child)
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve())
    child.on('exit', (code) => reject(new Error(`holder exited ${code}`)))
  })
  return child
}
