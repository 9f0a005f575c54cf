import { describe, expect, it } from 'vitest'
import { kafkaWhy } from '../support/kafka-why-cli.js'

// Every command answers a missing path or an unreachable Redis with one line and an exit code,
// never a stack trace and never a hang.
describe('cli/console-session errors', { timeout: 120_000, concurrent: true }, () => {
  it.each([
    { args: ['console', '--replay', '/nonexistent', '-c', 'status'], env: {}, code: 2, line: 'kafka-why console: no such file or directory: /nonexistent' },
    { args: ['digest', '--replay', '/nonexistent'], env: {}, code: 2, line: 'kafka-why digest: no such file or directory: /nonexistent' },
    { args: ['digest', '--spec', '/nonexistent/chart.json'], env: {}, code: 2, line: 'kafka-why digest: cannot write /nonexistent/chart.json: no such directory' },
    { args: ['digest', '--out', '/'], env: {}, code: 2, line: 'kafka-why digest: cannot write /: is a directory' },
    { args: ['console', '--no-replay', '-c', 'status'], env: { REDIS_URL: 'redis://127.0.0.1:1' }, code: 1, line: 'kafka-why console: cannot reach Redis at redis://127.0.0.1:1: connection refused' },
    { args: ['digest', '--no-replay'], env: { REDIS_URL: 'redis://127.0.0.1:1' }, code: 1, line: 'kafka-why digest: cannot reach Redis at redis://127.0.0.1:1: connection refused' },
  ] as { args: string[]; env: Record<string, string>; code: number; line: string }[])('$args → exit $code, one line', async ({ args, env, code, line }) => {
    const r = await kafkaWhy(args, env)
    expect(r.code).toBe(code)
    expect(r.stderr.trim().split('\n')).toEqual([line])
  })
})
