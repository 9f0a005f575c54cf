import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseExposition } from '../../../adapters/prometheus/exposition.js'
import { SampleConverter } from '../../../adapters/prometheus/to-signals.js'

/**
 * A real node-exporter 1.5.0 scrape (Debian's prometheus-node-exporter, `--collector.disable-defaults
 * --collector.filesystem`, on this machine while a lab broker's log dir was a tmpfs): every file system's
 * free and total bytes become disk.avail and disk.size named by mount point.
 */
const CAPTURE = readFileSync(path.join(import.meta.dirname, 'fixtures', 'node-exporter-1.5.0-filesystem.prom'), 'utf8')

describe('adapters/prometheus/mapping (node-exporter)', () => {
  it('maps node_filesystem_avail_bytes and node_filesystem_size_bytes of every file system, a tmpfs log dir included', () => {
    const c = new SampleConverter({ cluster: 'lab', broker: '3', source: 'prom:node' })
    c.begin(1_000)
    const signals = parseExposition(CAPTURE).samples.flatMap((s) => c.convert(s))
    const view = (name: string) => signals.filter((s) => s.name === name).map((s) => [s.labels?.path, s.labels?.device, s.value]).sort()
    expect(view('disk.avail')).toEqual([
      ['/', '/dev/vda', 81136177152],
      ['/tmp/kafka-why-lab-qKLPdv/broker-3/data', 'tmpfs', 100663296],
    ])
    expect(view('disk.size')).toEqual([
      ['/', '/dev/vda', 270553174016],
      ['/tmp/kafka-why-lab-qKLPdv/broker-3/data', 'tmpfs', 100663296],
    ])
    // The collector's other series (files, read-only flag, device errors) are not mapped, nor are
    // node-exporter's own process_open_fds, process_max_fds and start time: they are not the broker's.
    expect(new Set(signals.map((s) => s.name))).toEqual(new Set(['disk.avail', 'disk.size']))
  })

  it('leaves out kernel and image file systems', () => {
    const c = new SampleConverter({ cluster: 'lab', broker: '3', source: 'prom:node' })
    c.begin(1_000)
    const text = [
      'node_filesystem_avail_bytes{device="udev",fstype="devtmpfs",mountpoint="/dev"} 4.1e+09',
      'node_filesystem_avail_bytes{device="/dev/loop3",fstype="squashfs",mountpoint="/snap/core20/2015"} 0',
      'node_filesystem_avail_bytes{device="/dev/vda",fstype="ext4",mountpoint="/"} 8.1136177152e+10',
    ].join('\n')
    const signals = parseExposition(text).samples.flatMap((s) => c.convert(s))
    expect(signals.map((s) => s.labels?.path)).toEqual(['/'])
  })
})
