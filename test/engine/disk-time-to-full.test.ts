import { describe, expect, it } from 'vitest'
import { deriveTimeToFull, FILL_FIT_MIN_SPAN_MS } from '../../engine/disk-time-to-full.js'
import type { Signal } from '../../signals/signal.js'

const MiB = 1024 * 1024
const avail = (path: string, points: [number, number][]): Signal[] =>
  points.map(([atS, bytes]) => ({ name: 'disk.avail', at: atS * 1000, cluster: 'c', broker: '1', value: bytes, labels: { path }, source: 'agent:h:statfs' }))
const steps = (n: number, everyS: number, from: number, perStep: number): [number, number][] => Array.from({ length: n }, (_, i) => [i * everyS, from + i * perStep])

describe('engine/disk-time-to-full', () => {
  it('divides the free bytes by the rate they fall at, once the samples span the minimum', () => {
    // 600 KiB/s off 700 MiB, every 5 s for 10 minutes.
    const out = deriveTimeToFull(avail('/data', steps(121, 5, 700 * MiB, -3000 * 1024)))
    expect(out[0].at).toBe(FILL_FIT_MIN_SPAN_MS)
    const last = out.at(-1)!
    const free = 700 * MiB - 120 * 3000 * 1024
    expect(last.value).toBeCloseTo((free / (600 * 1024)) * 1000, -2)
    expect(last.labels).toEqual({ path: '/data' })
    expect(last.text).toMatch(/^\/data: .* free, filling at 600KiB\/s over the last 10m \(121 samples\): full in /)
  })

  it('yields nothing for a file system that holds steady or gains space', () => {
    expect(deriveTimeToFull(avail('/data', steps(121, 5, 700 * MiB, 0)))).toEqual([])
    expect(deriveTimeToFull(avail('/data', steps(121, 5, 700 * MiB, 4096)))).toEqual([])
  })

  it('keeps file systems apart and ignores samples without a value', () => {
    const a = avail('/a', steps(121, 5, 700 * MiB, -1 * MiB))
    const b = avail('/b', steps(121, 5, 900 * MiB, 0))
    const broken: Signal = { ...a[3], value: Number.NaN }
    const out = deriveTimeToFull([...b, broken, ...a])
    expect(new Set(out.map((s) => s.labels?.path))).toEqual(new Set(['/a']))
  })

  it('stops once a burst has ended: the recent half of the window no longer falls', () => {
    const burst = steps(61, 5, 2000 * MiB, -10 * MiB)
    const flat: [number, number][] = Array.from({ length: 120 }, (_, i) => [305 + i * 5, 1400 * MiB])
    const out = deriveTimeToFull(avail('/data', [...burst, ...flat]))
    // The recent half of the window holds part of the burst until it is 5 minutes past; no later.
    expect(out.length).toBeGreaterThan(0)
    expect(out.every((s) => s.at < 600_000)).toBe(true)
    // And as the burst slides out of it, the time to full grows.
    expect(out.at(-1)!.value!).toBeGreaterThan(out.find((s) => s.at > 305_000)!.value!)
  })
})
