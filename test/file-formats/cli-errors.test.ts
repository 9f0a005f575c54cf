import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { kafkaWhy } from '../support/kafka-why-cli.js'

// A typo in any of the three YAML formats is one line per problem naming file:line:col and the key
// path, from the real command, never a stack trace.
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-formats-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('file format errors on the command line', () => {
  it('serve names each bad key of kafka-why.yaml where it is written', async () => {
    const file = path.join(dir, 'kafka-why.yaml')
    await writeFile(file, 'live:\n  engine: { tick: soon }\n  clusters:\n    prod:\n      logs: [{ pth: /var/log/kafka/server.log }]\n')
    const r = await kafkaWhy(['serve', '--config', file])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`${file}:2:19: live.engine.tick: 'soon' is not a duration (e.g. 15s, 500ms, 1m)`)
    expect(r.stderr).toContain(`${file}:5:16: live.clusters.prod.logs[0].pth: unknown key (known: broker, path, offset_file, from_end)`)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  }, 120_000)

  it('test names the bad field of a rule-test file with line and column', async () => {
    const file = path.join(dir, 'bad.yaml')
    await writeFile(file, 'tests:\n  - name: x\n    series: ["isr.shrink{broker=\\"1\\"}: 1"]\n    absent:\n      - { rule: r, severity: fatal }\n')
    const r = await kafkaWhy(['test', file])
    expect(r.code).toBe(1)
    expect(r.stdout + r.stderr).toContain(`${file}:5:30: tests[0].absent[0].severity: \`severity:\` is info, warning or critical`)
  }, 120_000)

  it('why --replay names the bad field of an incident.yaml with line and column', async () => {
    const inc = path.join(dir, 'incident')
    await mkdir(inc, { recursive: true })
    await writeFile(path.join(inc, 'incident.yaml'), 'cluster: lab\nsources:\n  - { path: server.log, format: syslog }\n')
    await writeFile(path.join(inc, 'server.log'), '')
    const r = await kafkaWhy(['why', '1', '--replay', inc])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`${path.join(inc, 'incident.yaml')}:3:33: sources[0].format: expected kafka, gc, client`)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  }, 120_000)
})
