import { describe, expect, it } from 'vitest'
import { MATCHERS } from '../../../adapters/logs/matchers.js'
import { BOUND_MS, bestMs, hostileShapes, LINE_BYTES, slowestShape } from './hostile-lines.js'

// No row of the wording table may take more than 10 ms on one 64 KiB line, whatever the line holds
// (hostile-lines.ts says how the lines are built). The table is iterated, so rows added later are held
// to the same bound; parser-linear.test.ts holds the whole parser, build steps included, to it too.
// Every shape is timed on a 16 KiB line against the bound scaled down, the slowest again on 64 KiB
// (hostile-lines.ts, slowestShape, says why that finds a backtracking regex).

describe('adapters/logs/matchers linear time', () => {
  it('the table has rows to check', () => {
    expect(MATCHERS.length).toBeGreaterThan(30)
  })

  it.each(MATCHERS.map((m, i) => ({ row: i + 1, m, words: (m.literals[0] ?? m.pattern ?? '').slice(0, 40) })))(
    'row $row ($words) stays under 10 ms on hostile 64 KiB lines',
    ({ m }) => {
      const shapes = hostileShapes(m)
      const boundMs = (bytes: number) => (BOUND_MS * bytes) / LINE_BYTES
      const slowest = slowestShape(
        shapes.length,
        (index, bytes) => {
          const line = shapes[index](bytes)
          return bestMs(() => {
            m.re.lastIndex = 0
            m.re.exec(line)
          }, boundMs(bytes) / 4)
        },
        boundMs,
      )
      const line = shapes[slowest.index](slowest.bytes)
      expect(slowest.ms, `slowest ${slowest.bytes / 1024} KiB line starts ${JSON.stringify(line.slice(0, 60))}`).toBeLessThanOrEqual(slowest.boundMs)
    },
  )
})
