// Loaded with `node --import` by tests that bound a child's memory: at exit the child writes its peak
// resident set (process.resourceUsage().maxRSS, KiB) to stderr as `max-rss-kib N`, so the test needs no
// external tool such as /usr/bin/time.
import { writeSync } from 'node:fs'

process.on('exit', () => {
  writeSync(2, `max-rss-kib ${process.resourceUsage().maxRSS}\n`)
})
