import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { JSON_SCHEMAS, renderJsonSchema } from '../../file-formats/json-schemas.js'

// schemas/*.schema.json are generated from the zod schemas the code validates with. Regenerate with
// `npm run schemas` after changing a format; this fails while a checked-in file is stale.
describe('file-formats/json-schemas', () => {
  it.each(JSON_SCHEMAS.map((e) => [e.file, e] as const))('schemas/%s is current', (file, entry) => {
    const onDisk = readFileSync(path.join('schemas', file), 'utf8')
    expect(onDisk, `schemas/${file} is stale: run npm run schemas`).toBe(renderJsonSchema(entry))
  })

  it('has no schema file that no format generates', () => {
    expect(readdirSync('schemas').filter((f) => f.endsWith('.json')).sort()).toEqual(JSON_SCHEMAS.map((e) => e.file).sort())
  })

  it('describes what a person writes: durations as text, unknown keys refused, defaults shown', () => {
    const config = JSON.parse(readFileSync('schemas/kafka-why.schema.json', 'utf8'))
    expect(config.additionalProperties).toBe(false)
    const engine = config.properties.live.properties.engine
    const tick = engine.properties.tick
    expect(tick.anyOf.map((t: { type: string }) => t.type)).toEqual(['string', 'number'])
    const durationText = new RegExp(tick.anyOf[0].pattern)
    expect(['15s', '500ms', '1.5m', '7d', '250'].filter((v) => !durationText.test(v))).toEqual([])
    expect(['soon', '3GiB', '15 seconds'].filter((v) => durationText.test(v))).toEqual([])
    expect(engine.properties.tick.default).toBe('1s')
    expect(config.properties.live.properties.retention.properties.default.default).toBe('7d')
    expect(config.properties.time_zone.default).toBe('UTC')
  })
})
