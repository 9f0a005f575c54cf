import { describe, expect, it } from 'vitest'
import { MATCHERS } from '../../../adapters/logs/matchers.js'
import { BOUND_MS, bestMs, hostileLines } from './hostile-lines.js'

// No row of the wording table may take more than 10 ms on one 64 KiB line, whatever the line holds
// (hostile-lines.ts says how the lines are built). The table is iterated, so rows added later are held
// to the same bound; parser-linear.test.ts holds the whole parser, build steps included, to it too.

describe('adapters/logs/matchers linear time', () => {
  it('the table has rows to check', () => {
    expect(MATCHERS.length).toBeGreaterThan(30)
  })

  it.each(MATCHERS.map((m, i) => ({ row: i + 1, m, words: (m.literals[0] ?? m.pattern ?? '').slice(0, 40) })))(
    'row $row ($words) stays under 10 ms on hostile 64 KiB lines',
    ({ m }) => {
      let slowest = { ms: 0, line: '' }
      for (const line of hostileLines(m)) {
        const ms = bestMs(() => {
          m.re.lastIndex = 0
          m.re.exec(line)
        })
        if (ms > slowest.ms) slowest = { ms, line }
      }
      expect(slowest.ms, `slowest line starts ${JSON.stringify(slowest.line.slice(0, 60))}`).toBeLessThanOrEqual(BOUND_MS)
    },
  )
})
