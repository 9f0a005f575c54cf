/**
 * Regenerates the MBean-program captures in fixtures/ (jmx-<version>-<config>.prom): starts
 * fixtures/KafkaMBeans.java with the JMX exporter agent of each version and config and saves one
 * scrape, so exposition and mapping tests read what the exporter truly writes.
 * Run: npx tsx test/adapters/prometheus/capture-mbeans.ts [one output file name]
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { FIXTURES, freePort, startJvm, type ExporterVersion } from './jmx-jvm.js'

const CAPTURES: { version: ExporterVersion; config: string; out: string }[] = [
  { version: '0.20.0', config: 'default-format.yml', out: 'jmx-0.20.0-default.prom' },
  { version: '0.20.0', config: 'kafka-lowercase-naming.yml', out: 'jmx-0.20.0-kafka-lowercase-naming.prom' },
  { version: '1.0.1', config: 'default-format.yml', out: 'jmx-1.0.1-default.prom' },
  { version: '1.0.1', config: 'kafka-lowercase-naming.yml', out: 'jmx-1.0.1-kafka-lowercase-naming.prom' },
]
const only = process.argv[2]

for (const c of CAPTURES.filter((x) => !only || x.out === only)) {
  const jvm = await startJvm(c.version, c.config, await freePort())
  try {
    const text = await (await fetch(jvm.url)).text()
    writeFileSync(path.join(FIXTURES, c.out), text)
    console.log(`${c.out}: ${text.split('\n').length} lines`)
  } finally {
    await jvm.stop()
  }
}
