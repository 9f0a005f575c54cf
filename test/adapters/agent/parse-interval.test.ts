import { describe, expect, it } from 'vitest'
import { parseInterval } from '../../../adapters/agent/parse-interval.js'

describe('adapters/agent/parse-interval', () => {
  it.each([
    ['15s', 15_000],
    ['500ms', 500],
    ['2m', 120_000],
    ['250', 250],
    ['15 parsecs', undefined],
    ['3GiB', undefined],
    ['0s', undefined],
  ])('reads the interval %j as %s ms', (text, ms) => {
    expect(parseInterval(text)).toBe(ms)
  })
})
