import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseMaxOpenFiles, parseProcStat, readProcStats, resolvePid } from '../../../adapters/agent/proc-stats.js'
import { cleanupHolders, dir, holder } from './holder.js'

afterAll(cleanupHolders)

describe('adapters/agent/proc-stats', () => {
  it('counts a real process\'s open files and mappings, and reads its limits', async () => {
    const base = await holder(0, 0, 300)
    const more = await holder(50, 0, 300)
    const mapped = await holder(0, 40, 300)
    const [b, m, p] = await Promise.all([base, more, mapped].map((c) => readProcStats(c.pid!)))
    expect(m.fdOpen - b.fdOpen).toBe(50)
    // each file mapping adds a line to /proc/<pid>/maps; the interpreter's own areas vary by a few
    expect(p.mmapCount - b.mmapCount).toBeGreaterThanOrEqual(36)
    expect(m.mmapCount - b.mmapCount).toBeLessThan(5)
    expect(b.fdMax).toBe(300)
    expect(b.mmapMax).toBe(Number(readFileSync('/proc/sys/vm/max_map_count', 'utf8')))
    for (const c of [base, more, mapped]) c.stdin!.end()
  })

  it('reads a real process\'s state: sleeping, then stopped (T) after SIGSTOP, its CPU time not advancing', async () => {
    const c = await holder(0, 0, 300)
    const awake = await readProcStats(c.pid!)
    expect(awake.state).toMatch(/^[SR]$/)
    c.kill('SIGSTOP')
    await new Promise((r) => setTimeout(r, 200))
    const stopped = await readProcStats(c.pid!)
    expect(stopped.state).toBe('T')
    await new Promise((r) => setTimeout(r, 300))
    expect((await readProcStats(c.pid!)).cpuMs).toBe(stopped.cpuMs)
    c.kill('SIGCONT')
    await new Promise((r) => setTimeout(r, 200))
    expect((await readProcStats(c.pid!)).state).toMatch(/^[SR]$/)
    c.stdin!.end()
  })

  it('counts stat fields from the last parenthesis: a command name may hold spaces and parentheses', () => {
    // /proc/self/stat of `cat` on this machine, with its name replaced by one that has both.
    const line = '27789 (a (b) c) R 27720 27720 6835 0 -1 4194304 126 0 0 0 7 3 0 0 20 0 1 0 36478 3133440 389 18446744073709551615'
    expect(parseProcStat(line)).toEqual({ state: 'R', cpuMs: 100 })
    expect(parseProcStat('garbage')).toBeUndefined()
  })

  it.each([
    ['Max open files            1024                 1048576              files     ', 1024],
    ['Max open files            unlimited            unlimited            files     ', undefined],
    ['Max processes             63432                63432                processes ', undefined],
  ])('reads %j as %s', (line, expected) => {
    expect(parseMaxOpenFiles(`Limit                     Soft Limit           Hard Limit           Units     \n${line}\n`)).toBe(expected)
  })

  it.each([
    ['1234', 1234],
    ['pidfile-ok', 4321],
  ])('resolves --pid %s', async (spec, pid) => {
    writeFileSync(path.join(dir, 'pidfile-ok'), '4321\n')
    expect(await resolvePid(spec === '1234' ? spec : path.join(dir, spec))).toBe(pid)
  })

  it.each([
    ['missing.pid', /cannot read pid file .*ENOENT/],
    ['garbage.pid', /does not hold a process id/],
  ])('rejects the pid file %s with a clear error', async (file, message) => {
    writeFileSync(path.join(dir, 'garbage.pid'), 'kafka\n')
    await expect(resolvePid(path.join(dir, file))).rejects.toThrow(message)
  })

})
