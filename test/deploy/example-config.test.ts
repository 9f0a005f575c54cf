import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseLiveConfig } from '../../adapters/live/live-config.js'
import { parseBotConfig } from '../../bot/config.js'
import { kafkaWhy } from '../support/kafka-why-cli.js'

// The shipped example must load as written (its secret files and variables supplied), so the file
// `kafka-why init` writes is never a trap; and init must not clobber a team's config.
let dir: string
let text: string

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-init-'))
  await writeFile(path.join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n')
  await writeFile(path.join(dir, 'sasl-password'), 's3cret\n')
  text = (await readFile('kafka-why.example.yaml', 'utf8')).replaceAll('/etc/kafka-why/', `${dir}/`)
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('kafka-why.example.yaml', () => {
  it('loads as the bot configuration', () => {
    const c = parseBotConfig(text, 'kafka-why.example.yaml')
    expect(c.clusters.map((x) => x.name)).toEqual(['prod'])
    expect(c.riskyKeys).toContain('min.insync.replicas')
  })

  it('loads as serve’s live configuration, secrets from files and the environment', () => {
    const live = parseLiveConfig(text, 'kafka-why.example.yaml', { EXPORTER_USER: 'scraper', EXPORTER_PASSWORD: 'pw' })
    const prod = live.clusters.find((c) => c.name === 'prod')!
    expect(prod.scrape.map((t) => t.broker)).toEqual(['1', '2', '3'])
    expect(prod.scrape[2].url).toBe('http://scraper:pw@kafka-3:7071/metrics')
    expect(prod.logs.map((l) => l.path)).toEqual(['/var/log/kafka/server.log', '/var/log/kafka/gc.log'])
    expect(live.signalsTopic?.topic).toBe('kafka-why-signals')
  })

  it('names the missing variable instead of loading an empty password', () => {
    expect(() => parseLiveConfig(text, 'kafka-why.example.yaml', {})).toThrow(/EXPORTER_USER/)
  })
})

describe('cli/commands/init', () => {
  it('writes the example, then refuses to overwrite it without --force', async () => {
    const out = path.join(dir, 'kafka-why.yaml')
    const first = await kafkaWhy(['init', '--out', out])
    expect(first.code).toBe(0)
    const [comment, ...body] = (await readFile(out, 'utf8')).split('\n')
    expect(body.join('\n')).toBe((await readFile('kafka-why.example.yaml', 'utf8')).replace(/^# yaml-language-server:.*\n/, ''))
    // The editor comment points at the installed schema from wherever the file was written.
    const schema = /^# yaml-language-server: \$schema=(\S+)$/.exec(comment)?.[1]
    expect(schema && path.resolve(dir, schema)).toBe(path.resolve('schemas/kafka-why.schema.json'))
    const again = await kafkaWhy(['init', '--out', out])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain(`${out} exists; pass --force`)
    expect((await kafkaWhy(['init', '--out', out, '--force'])).code).toBe(0)
  }, 180_000)
})
