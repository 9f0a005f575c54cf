// Writes case-NN.jsonl: Burrow's evaluator correctness table (linkedin/Burrow
// core/internal/evaluator/caching_test.go, `var tests`, master ced55ba) as offset histories kafka-why
// stores. Run: node test/incidents/burrow-evaluator-cases/make-cases.mjs
import { writeFileSync } from 'node:fs'

const five = (offsets, lags) => offsets.map((o, i) => [o, (i + 1) * 100000, lags[i]])
const t9 = [1512224618356, 1512224619362, 1512224620366, 1512224621367, 1512224622370, 1512224623373, 1512224624378, 1512224625379, 1512224626383, 1512224627383, 1512224628383, 1512224629388, 1512224630391, 1512224631394, 1512224632397]
const burrow9 = t9.map((ts, i) => [792748079 + i, ts, 0])
// [index, commits [offset, timestamp ms, lag], broker offsets newest first, Burrow's timeNow (s)]
const CASES = [
  [0, five([1000, 2000, 3000, 4000, 5000], [0, 50, 100, 150, 200]), [5200], 600],
  [1, five([1000, 2000, 3000, 4000, 5000], [0, 50, 100, 150, 200]), [5200], 900],
  [2, five([1000, 2000, 3000, 4000, 5000], [0, 50, 100, 150, 200]), [5200], 1000],
  [3, five([1000, 2000, 3000, 4000, 5000], [50, 100, 150, 200, 250]), [5250], 1000],
  [4, five([1000, 1000, 1000, 1000, 1000], [0, 50, 100, 150, 200]), [1200], 600],
  [5, five([1000, 1000, 1000, 1000, 1000], [100, 150, 200, 250, 300]), [1300], 600],
  [6, five([1000, 1000, 1000, 1000, 1000], [100, 100, 100, 100, 100]), [1100], 600],
  [7, five([1000, 2000, 3000, 2000, 4000], [100, 150, 200, 1250, 300]), [4300], 600],
  [9, burrow9, [792749024, 792749000, 792748800, 792748600, 792748500], 1512224650],
  [10, burrow9, [792748094, 792748093, 792748093, 792748093], 1512224650],
  [15, five([1000, 2000, 3000, 2000, 2500], [100, 150, 200, 1250, 300]), [4300], 600],
]
const tp = { topic: 'burrow', partition: '0' }
for (const [index, commits, brokerOffsets, nowS] of CASES) {
  const lines = []
  const add = (s) => lines.push(JSON.stringify({ cluster: 'burrow', broker: '1', source: `burrow:caching_test.go#${index}`, ...s }))
  // The lag Burrow stored with a commit is the log end it knew then: a log-end sample at the commit's time.
  for (const [offset, at, lag] of commits) {
    add({ name: 'partition.log_end', at, value: offset + lag, labels: tp })
    add({ name: 'group.commit', at, value: offset, labels: { group: 'burrow-case', ...tp } })
  }
  // Its ring of broker offsets (newest first): log-end samples between the last commit and "now", oldest first.
  const last = commits[commits.length - 1][1]
  const now = nowS * 1000
  const ring = [...brokerOffsets].reverse()
  ring.forEach((value, i) => add({ name: 'partition.log_end', at: Math.round(last + ((i + 1) * (now - last)) / (ring.length + 1)), value, labels: tp }))
  writeFileSync(new URL(`./case-${String(index).padStart(2, '0')}.jsonl`, import.meta.url), lines.join('\n') + '\n')
}
