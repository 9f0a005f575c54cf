import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERRNO_TABLE, errnoTexts, type ErrnoName } from '../../../adapters/logs/wording/errno.js'
import { buildErrnoTable, formatTable, readMo } from '../../../lab/wording/errno-texts.js'
import { lookupSignal } from '../../../signals/catalogue.js'
import { brief, parse } from './helpers.js'

// Seed 001's error record (test/adapters/logs/fixtures/seed-001, verbatim from the report): the lines
// before its `Caused by:`, whose "java.io.IOException: Map failed" line is where the JDK puts strerror().
const SEED_001 = readFileSync(new URL('./fixtures/seed-001/broker-1/server.log', import.meta.url), 'utf8').split('\n')
const SEED_HEADER = SEED_001[0]
const SEED_FRAMES = SEED_001.slice(2, SEED_001.findIndex((l) => l.startsWith('Caused by:')))

/** Seed 001's record with its IOException line replaced. */
const seedWith = (exceptionLine: string) => [SEED_HEADER, exceptionLine, ...SEED_FRAMES].join('\n') + '\n'

// kafkaServer.out: Kafka's console appender writes the Apache layout, the JVM writes its banners
// between those lines with no timestamp. A banner joins the record above it and takes its time.
const BEFORE = '[2018-07-17 03:51:40,101] INFO [KafkaServer id=1001] started (kafka.server.KafkaServer)'
const BEFORE_AT = Date.parse('2018-07-17T03:51:40.101Z')
const AFTER = '[2018-07-17 03:52:10,000] INFO [Partition orders-3 broker=1001] Shrinking ISR from 1001,1002 to 1001 (kafka.cluster.Partition)'
const out = (...banner: string[]) => [BEFORE, ...banner, AFTER].join('\n') + '\n'

const ERRNO_SIGNALS: Record<Exclude<ErrnoName, 'ENOENT'>, { name: string; labels?: Record<string, string> }> = {
  ENOSPC: { name: 'disk.full' },
  EDQUOT: { name: 'disk.quota_exceeded' },
  EMFILE: { name: 'fd.exhausted' },
  ENFILE: { name: 'fd.exhausted', labels: { limit: 'system' } },
  EROFS: { name: 'disk.read_only' },
  EIO: { name: 'disk.io_error' },
  ENOMEM: { name: 'mem.cannot_allocate' },
  ESTALE: { name: 'fs.stale_handle' },
  EACCES: { name: 'fs.permission_denied' },
}

/** Every (errno, locale, text) of the checked-in table that should give a signal. */
const TEXT_ROWS = (Object.keys(ERRNO_SIGNALS) as (keyof typeof ERRNO_SIGNALS)[]).flatMap((errno) =>
  Object.entries(ERRNO_TABLE.errno[errno]).flatMap(([locale, texts]) => texts.map((text) => [errno, locale, text] as const)),
)

/** The signals of `name` in a parse, as table rows compare them. */
const named = (text: string, name: string) => parse(text).signals.filter((s) => s.name === name).map(brief)

describe('adapters/logs/wording/errno-texts.json', () => {
  it('holds every errno text in the ten locales brokers run under, from glibc', () => {
    expect(ERRNO_TABLE.source).toMatch(/^Debian libc-l10n \d+\.\d+/)
    for (const [errno, byLocale] of Object.entries(ERRNO_TABLE.errno) as [ErrnoName, Record<string, string[]>][]) {
      const missing = ERRNO_TABLE.untranslated[errno]
      expect(Object.keys(byLocale).sort()).toEqual(['en', 'zh_CN', 'zh_TW', 'ja', 'ko', 'de', 'fr', 'es', 'ru', 'pt_BR'].filter((l) => !missing.includes(l)).sort())
    }
    expect(ERRNO_TABLE.errno.ENOSPC.zh_CN).toEqual(['设备上没有空间'])
  })

  // The checked-in table is the generator's output, not a hand edit: regenerate it from the catalogues
  // installed here (Debian libc-l10n) and compare. Machines without libc-l10n cannot run the generator.
  it.runIf(existsSync('/usr/share/locale/zh_CN/LC_MESSAGES/libc.mo'))('is what lab/wording/errno-texts.ts generates from libc.mo', () => {
    const version = /^Debian libc-l10n (\S+)/.exec(ERRNO_TABLE.source)?.[1] as string
    const checkedIn = readFileSync(new URL('../../../adapters/logs/wording/errno-texts.json', import.meta.url), 'utf8')
    expect(formatTable(buildErrnoTable('/usr/share/locale', version))).toBe(checkedIn)
  })

  it('refuses a file that is not a GNU message catalogue', () => {
    expect(() => readMo(Buffer.from('msgid "x"\nmsgstr "y"\n'.repeat(3)))).toThrow(/not a GNU \.mo file/)
    expect(() => readMo(Buffer.alloc(10))).toThrow(/shorter than its header/)
  })
})

describe('adapters/logs/jvm-os-matchers: errno texts in every locale', () => {
  it.each(TEXT_ROWS)('%s %s "%s" in seed 001\'s IOException', (errno, _locale, text) => {
    const want = ERRNO_SIGNALS[errno]
    const got = named(seedWith(`java.io.IOException: ${text}`), want.name)
    expect(got).toEqual([{ name: want.name, labels: { dir: '/broder/log', ...want.labels } }])
  })

  // java.nio's UnixException: "FileSystemException: <file>: <strerror>" (here with seed 001's index file).
  it.each(TEXT_ROWS)('%s %s "%s" after a java.nio path', (errno, _locale, text) => {
    const want = ERRNO_SIGNALS[errno]
    const path = '/broder/log/LoadTestingTopic-0/00000000000003466181.index'
    const got = named(seedWith(`java.nio.file.FileSystemException: ${path}: ${text}`), want.name)
    expect(got).toEqual([{ name: want.name, labels: { dir: '/broder/log', path, ...want.labels } }])
  })

  // java.io's FileOutputStream/RandomAccessFile open: "FileNotFoundException: <file> (<strerror>)".
  it.each(TEXT_ROWS)('%s %s "%s" in a FileNotFoundException', (errno, _locale, text) => {
    const want = ERRNO_SIGNALS[errno]
    const path = '/broder/log/LoadTestingTopic-0/00000000000003466181.log'
    const got = named(seedWith(`java.io.FileNotFoundException: ${path} (${text})`), want.name)
    expect(got).toEqual([{ name: want.name, labels: { dir: '/broder/log', path, ...want.labels } }])
  })

  // A Kafka exception wrapping the JDK's: seed 001's record with the errno text in its `Caused by:`
  // (UnifiedLog.scala 3.x throws KafkaStorageException with the message it logged, the cause attached).
  it.each(TEXT_ROWS)('%s %s "%s" in a Caused by: line', (errno, _locale, text) => {
    const want = ERRNO_SIGNALS[errno]
    const wrapper = 'org.apache.kafka.common.errors.KafkaStorageException: Error while appending records to LoadTestingTopic in dir /broder/log'
    const record = [SEED_HEADER, wrapper, ...SEED_FRAMES, `Caused by: java.io.IOException: ${text}`]
    const got = parse(record.join('\n') + '\n').signals.filter((s) => s.name === want.name)
    expect(got.map(brief)).toEqual([{ name: want.name, labels: { dir: '/broder/log', ...want.labels } }])
    expect(got[0].text?.split('\n')[1]).toBe(`Caused by: java.io.IOException: ${text}`)
  })

  // hotspot ostream.cpp "Cannot open file %s due to %s" (JDK 8 prints strerror() in the locale), on stdout.
  it.each(TEXT_ROWS)('%s %s "%s" in a JVM warning on stdout', (errno, _locale, text) => {
    const want = ERRNO_SIGNALS[errno]
    const path = '/var/log/kafka/kafkaServer-gc.log'
    const got = named(out(`Java HotSpot(TM) 64-Bit Server VM warning: Cannot open file ${path} due to ${text}`), want.name)
    expect(got).toEqual([{ name: want.name, broker: '1001', labels: { path, ...want.labels } }])
  })

  it('keeps seed 001 itself reading as before: Map failed, the mmap OOM, the dir failure', () => {
    const names = parse(SEED_001.join('\n')).signals.map((s) => brief(s))
    expect(names).toContainEqual({ name: 'log.map_failed', labels: { dir: '/broder/log', topic: 'LoadTestingTopic' } })
    expect(names).toContainEqual({ name: 'jvm.oom', labels: { kind: 'map' } })
    expect(names.some((s) => /^(disk|fs|mem|fd)\./.test(s.name as string))).toBe(false)
  })

  it('gives no errno signal for ENOENT, whose text Kafka logs in normal operation', () => {
    const errnoSignals = new Set(Object.values(ERRNO_SIGNALS).map((s) => s.name))
    for (const text of errnoTexts(['ENOENT'])) {
      const got = parse(seedWith(`java.io.FileNotFoundException: /broder/log/x.index (${text})`)).signals
      expect(got.filter((s) => errnoSignals.has(s.name))).toEqual([])
    }
  })

  it('reads java.nio AccessDeniedException, whose message is only the path', () => {
    const got = named(seedWith('java.nio.file.AccessDeniedException: /broder/log/LoadTestingTopic-0'), 'fs.permission_denied')
    expect(got).toEqual([{ name: 'fs.permission_denied', labels: { dir: '/broder/log', path: '/broder/log/LoadTestingTopic-0' } }])
  })

  it('leaves a text that only mentions the words alone (not where strerror() goes)', () => {
    expect(named('[2024-01-10 09:00:00,000] WARN Retrying after Disk quota exceededness check (kafka.Custom)\n', 'disk.quota_exceeded')).toEqual([])
  })
})

describe('adapters/logs/jvm-os-matchers: OutOfMemoryError kinds', () => {
  // Each line is the JDK's own text for the kind (hotspot universe.cpp, java.nio.Bits, FileChannelImpl,
  // jvm.cpp), inside a Kafka request handler's uncaught-exception record (KafkaRequestHandler.scala).
  const rows: [string, string][] = [
    ['java.lang.OutOfMemoryError: Java heap space', 'heap'],
    ['java.lang.OutOfMemoryError: GC overhead limit exceeded', 'gc_overhead'],
    ['java.lang.OutOfMemoryError: Direct buffer memory', 'direct'],
    // JDK 16+ java.nio.Bits; values from a public reproduction (-XX:MaxDirectMemorySize=16m).
    ['java.lang.OutOfMemoryError: Cannot reserve 1048576 bytes of direct buffer memory (allocated: 16777216, limit: 16777216)', 'direct'],
    ['java.lang.OutOfMemoryError: Metaspace', 'metaspace'],
    ['java.lang.OutOfMemoryError: Compressed class space', 'metaspace'],
    ['java.lang.OutOfMemoryError: PermGen space', 'metaspace'],
    ['java.lang.OutOfMemoryError: unable to create new native thread', 'native_thread'],
    ['java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached', 'native_thread'],
    ['java.lang.OutOfMemoryError: Map failed', 'map'],
    ['java.lang.OutOfMemoryError: Requested array size exceeds VM limit', 'array_size'],
    ['java.lang.OutOfMemoryError: C heap space', 'native'],
    ['java.lang.OutOfMemoryError', 'other'],
  ]
  it.each(rows)('%s -> kind %s', (line, kind) => {
    const text = `[2024-01-10 09:00:00,000] ERROR [KafkaApi-1] Unexpected error handling request (kafka.server.KafkaRequestHandler)\n${line}\n\tat java.base/java.lang.Thread.run(Thread.java:834)\n`
    expect(named(text, 'jvm.oom')).toEqual([{ name: 'jvm.oom', broker: '1', labels: { kind } }])
  })
})

describe('adapters/logs/jvm-os-matchers: OutOfMemoryError records recorded in the fault lab (Kafka 3.9.1, JDK 17)', () => {
  it('direct memory: a network thread reading a 16 MiB request under -XX:MaxDirectMemorySize=8m (lab-direct-memory-oom)', () => {
    const text = [
      '[2026-12-01 15:02:32,425] ERROR Processor got uncaught exception. (kafka.network.Processor)',
      'java.lang.OutOfMemoryError: Cannot reserve 16777346 bytes of direct buffer memory (allocated: 145993, limit: 8388608)',
      '\tat java.base/java.nio.Bits.reserveMemory(Bits.java:178)',
      '\tat java.base/java.nio.DirectByteBuffer.<init>(DirectByteBuffer.java:121)',
      '\tat java.base/java.nio.ByteBuffer.allocateDirect(ByteBuffer.java:332)',
      '',
    ].join('\n')
    expect(named(text, 'jvm.oom')).toEqual([{ name: 'jvm.oom', labels: { kind: 'direct' } }])
  })

  it('native thread: a request handler pool resized at the pids cgroup limit (lab-threads-exhausted)', () => {
    const text = [
      '[2026-12-01 15:31:43,380] ERROR [/config/changes-event-process-thread]: Error due to (kafka.common.ZkNodeChangeNotificationListener$ChangeEventProcessThread)',
      'java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached',
      '\tat java.base/java.lang.Thread.start0(Native Method)',
      '\tat java.base/java.lang.Thread.start(Thread.java:809)',
      '\tat kafka.server.KafkaRequestHandlerPool.createHandler(KafkaRequestHandler.scala:220)',
      '',
    ].join('\n')
    expect(named(text, 'jvm.oom')).toEqual([{ name: 'jvm.oom', labels: { kind: 'native_thread' } }])
  })
})

describe('adapters/logs/jvm-os-matchers: JVM banners on stdout', () => {
  it('native OOM: commit_memory warning and banner (wurstmeister/kafka-docker#357, musl "Out of memory")', () => {
    // https://github.com/wurstmeister/kafka-docker/issues/357, without its docker-compose prefix.
    const { signals } = parse(
      out(
        "OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x00000000c0000000, 1073741824, 0) failed; error='Out of memory' (errno=12)",
        '#',
        '# There is insufficient memory for the Java Runtime Environment to continue.',
        '# Native memory allocation (mmap) failed to map 1073741824 bytes for committing reserved memory.',
        '# An error report file with more information is saved as:',
        '# /tmp/hs_err_pid1.log',
      ),
    )
    const oom = signals.filter((s) => s.name === 'jvm.native_oom')
    expect(oom.map(brief)).toEqual([
      {
        name: 'jvm.native_oom',
        value: 1073741824,
        broker: '1001',
        labels: { allocator: 'mmap', detail: 'committing reserved memory', errno: 'ENOMEM', hs_err: '/tmp/hs_err_pid1.log' },
      },
    ])
    expect(oom[0].at).toBe(BEFORE_AT)
    expect(signals.map((s) => s.name)).not.toContain('jvm.warning')
    expect(signals.map((s) => s.name)).not.toContain('mem.cannot_allocate')
    expect(signals.find((s) => s.name === 'isr.shrink')?.at).toBe(Date.parse('2018-07-17T03:52:10.000Z'))
  })

  it('native OOM in a docker-compose log, JDK 11+ "Not enough space" (openimsdk/openim-docker#26)', () => {
    // https://github.com/openimsdk/openim-docker/issues/26: the banner, then the warning of the next try.
    const text = [
      `kafka  | ${BEFORE}`,
      'kafka  | # There is insufficient memory for the Java Runtime Environment to continue.',
      'kafka  | # Native memory allocation (mmap) failed to map 1073741824 bytes for committing reserved memory.',
      'kafka  | # An error report file with more information is saved as:',
      'kafka  | # //hs_err_pid31767.log',
      "kafka  | OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x00000000c0000000, 1073741824, 0) failed; error='Not enough space' (errno=12)",
    ].join('\n')
    expect(named(text, 'jvm.native_oom')).toEqual([
      {
        name: 'jvm.native_oom',
        value: 1073741824,
        broker: '1001',
        labels: { allocator: 'mmap', detail: 'committing reserved memory', errno: 'ENOMEM', hs_err: '//hs_err_pid31767.log' },
      },
    ])
  })

  it('native OOM: JDK 8 prints strerror() in the locale, the errno number names it (zh_CN)', () => {
    // The banner of wurstmeister/kafka-docker#74 (JDK 8) with the warning's error text in zh_CN, as
    // JDK 8's os_linux.cpp strerror() gives it under LANG=zh_CN.UTF-8.
    const zh = ERRNO_TABLE.errno.ENOMEM.zh_CN[0]
    const text = out(
      `Java HotSpot(TM) 64-Bit Server VM warning: INFO: os::commit_memory(0x00000000c0000000, 1073741824, 0) failed; error='${zh}' (errno=12)`,
      '#',
      '# There is insufficient memory for the Java Runtime Environment to continue.',
      '# Native memory allocation (mmap) failed to map 1073741824 bytes for committing reserved memory.',
      '# An error report file with more information is saved as:',
      '# //hs_err_pid102.log',
    )
    expect(named(text, 'jvm.native_oom')[0].labels).toMatchObject({ errno: 'ENOMEM', hs_err: '//hs_err_pid102.log' })
  })

  it('native OOM: JDK 21+ "bytes. Error detail:" and malloc', () => {
    // hotspot vmError.cpp (JDK 21+) "… failed to map N bytes. Error detail: …"; the malloc form is the
    // JDK 8 line "Native memory allocation (malloc) failed to allocate 4088 bytes for AllocateHeap".
    expect(named(out('# There is insufficient memory for the Java Runtime Environment to continue.', '# Native memory allocation (mmap) failed to map 528482304 bytes. Error detail: G1 virtual space'), 'jvm.native_oom')).toEqual([
      { name: 'jvm.native_oom', value: 528482304, broker: '1001', labels: { allocator: 'mmap', detail: 'G1 virtual space' } },
    ])
    expect(named(out('# There is insufficient memory for the Java Runtime Environment to continue.', '# Native memory allocation (malloc) failed to allocate 4088 bytes for AllocateHeap'), 'jvm.native_oom')).toEqual([
      { name: 'jvm.native_oom', value: 4088, broker: '1001', labels: { allocator: 'malloc', detail: 'AllocateHeap' } },
    ])
  })

  it('native OOM with one record per line (no layout): one signal per banner, a new one for the next attempt', () => {
    // openimsdk/openim-docker#26 as a file of JVM output alone: a banner, then the next start's warning.
    // `start` places lines without a time of their own, so the signals can be counted.
    const text = [
      '# There is insufficient memory for the Java Runtime Environment to continue.',
      '# Native memory allocation (mmap) failed to map 1073741824 bytes for committing reserved memory.',
      '# An error report file with more information is saved as:',
      '# //hs_err_pid31767.log',
      "OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x00000000c0000000, 1073741824, 0) failed; error='Not enough space' (errno=12)",
      '#',
      '# There is insufficient memory for the Java Runtime Environment to continue.',
      '# Native memory allocation (mmap) failed to map 1073741824 bytes for committing reserved memory.',
    ].join('\n')
    const got = parse(text, { format: 'kafka', layout: 'none', start: BEFORE_AT }).signals.filter((s) => s.name === 'jvm.native_oom')
    expect(got.map((s) => s.text)).toEqual([
      '# There is insufficient memory for the Java Runtime Environment to continue.',
      "OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x00000000c0000000, 1073741824, 0) failed; error='Not enough space' (errno=12)",
    ])
  })

  it('crash: a Kafka broker SIGSEGV in AbstractIndex.binarySearch (corretto/corretto-17#215)', () => {
    // https://github.com/corretto/corretto-17/issues/215 (Kafka 3.x broker on Corretto 17.0.14).
    const { signals } = parse(
      out(
        '#',
        '# A fatal error has been detected by the Java Runtime Environment:',
        '#',
        '#  SIGSEGV (0xb) at pc=0x000075a38ea42564, pid=2775295, tid=2901446',
        '#',
        '# JRE version: OpenJDK Runtime Environment Corretto-17.0.14.7.1 (17.0.14+7) (build 17.0.14+7-LTS)',
        '# Java VM: OpenJDK 64-Bit Server VM Corretto-17.0.14.7.1 (17.0.14+7-LTS, mixed mode, sharing, tiered, compressed oops, compressed class ptrs, g1 gc, linux-amd64)',
        '# Problematic frame:',
        '# J 26432 c2 org.apache.kafka.storage.internals.log.AbstractIndex.binarySearch(Ljava/nio/ByteBuffer;JLorg/apache/kafka/storage/internals/log/IndexSearchType;Lorg/apache/kafka/storage/internals/log/AbstractIndex$SearchResultType;II)I (161 bytes) @ 0x000075a38ea42564 [0x000075a38ea421c0+0x00000000000003a4]',
        '#',
      ),
    )
    const fatal = signals.filter((s) => s.name === 'jvm.fatal_error')
    expect(fatal).toHaveLength(1)
    expect(fatal[0].at).toBe(BEFORE_AT)
    expect(fatal[0].labels?.signal).toBe('SIGSEGV')
    expect(fatal[0].labels?.frame).toMatch(/^J 26432 c2 org\.apache\.kafka\.storage\.internals\.log\.AbstractIndex\.binarySearch\(/)
  })

  it('crash: JDK 8 SIGSEGV with its hs_err file (sky-uk/kafka-message-scheduler#97)', () => {
    // https://github.com/sky-uk/kafka-message-scheduler/issues/97
    const text = out(
      '#',
      '# A fatal error has been detected by the Java Runtime Environment:',
      '#',
      '#  SIGSEGV (0xb) at pc=0x00007f2f14a46f52, pid=1, tid=0x00007f2ee8b89ae8',
      '#',
      '# JRE version: OpenJDK Runtime Environment (8.0_171-b11) (build 1.8.0_171-b11)',
      '# Java VM: OpenJDK 64-Bit Server VM (25.171-b11 mixed mode linux-amd64 compressed oops)',
      '# Derivative: IcedTea 3.8.0',
      '# Distribution: Custom build (Wed Jun 13 18:28:11 UTC 2018)',
      '# Problematic frame:',
      '# C  [libjvm.so+0x27bf52]',
      '#',
      '# Core dump written. Default location: /opt/docker/core or core.1',
      '#',
      '# An error report file with more information is saved as:',
      '# /opt/docker/hs_err_pid1.log',
    )
    expect(named(text, 'jvm.fatal_error')).toEqual([
      { name: 'jvm.fatal_error', broker: '1001', labels: { signal: 'SIGSEGV', frame: 'C  [libjvm.so+0x27bf52]', hs_err: '/opt/docker/hs_err_pid1.log' } },
    ])
  })

  it('crash: SIGBUS in an mmap copy of a broker (apache/rocketmq#3511, JDK 10)', () => {
    // https://github.com/apache/rocketmq/issues/3511: a message broker's mapped file cut under it.
    const text = out(
      '#',
      '# A fatal error has been detected by the Java Runtime Environment:',
      '#',
      '#  SIGBUS (0x7) at pc=0x00007ff481c70304, pid=24249, tid=24426',
      '#',
      '# JRE version: Java(TM) SE Runtime Environment (10.0.2+13) (build 10.0.2+13)',
      '# Java VM: Java HotSpot(TM) 64-Bit Server VM (10.0.2+13, mixed mode, tiered, compressed oops, g1 gc, linux-amd64)',
      '# Problematic frame:',
      '# v  ~StubRoutines::jbyte_disjoint_arraycopy',
      '#',
      '# No core dump will be written. Core dumps have been disabled. To enable core dumping, try "ulimit -c unlimited" before starting Java again',
      '#',
      '# If you would like to submit a bug report, please visit:',
      '#   http://bugreport.java.com/bugreport/crash.jsp',
      '#',
    )
    expect(named(text, 'jvm.fatal_error')).toEqual([
      { name: 'jvm.fatal_error', broker: '1001', labels: { signal: 'SIGBUS', frame: 'v  ~StubRoutines::jbyte_disjoint_arraycopy' } },
    ])
  })

  it('-XX:+ExitOnOutOfMemoryError: heap dump, then "Terminating due to" (ThingsBoard AWS performance report)', () => {
    // ThingsBoard docs, reference/performance-aws-instances: a JVM with a Kafka queue running out of heap
    // (its docker-compose prefix removed).
    const { signals } = parse(
      out(
        'java.lang.OutOfMemoryError: Java heap space',
        'Dumping heap to java_pid76.hprof ...',
        'Unable to create java_pid76.hprof: Permission denied',
        'Terminating due to java.lang.OutOfMemoryError: Java heap space',
      ),
    )
    const got = signals.filter((s) => ['jvm.oom', 'fs.permission_denied', 'jvm.oom_exit'].includes(s.name)).map(brief)
    expect(got).toEqual([
      { name: 'jvm.oom', broker: '1001', labels: { kind: 'heap' } },
      { name: 'fs.permission_denied', broker: '1001' },
      { name: 'jvm.oom_exit', broker: '1001', labels: { action: 'exit', kind: 'heap' } },
    ])
  })

  it('-XX:OnOutOfMemoryError="kill -9 %p" (starburstdata/docker-images#5)', () => {
    // https://github.com/starburstdata/docker-images/pull/5
    const text = out(
      'java.lang.OutOfMemoryError: Java heap space',
      'Dumping heap to java_pid1.hprof ...',
      'Heap dump file created [524990525 bytes in 1.448 secs]',
      '#',
      '# java.lang.OutOfMemoryError: Java heap space',
      '# -XX:OnOutOfMemoryError="kill -9 %p"',
      '#   Executing /bin/sh -c "kill -9 1"...',
    )
    expect(named(text, 'jvm.oom_exit')).toEqual([{ name: 'jvm.oom_exit', broker: '1001', labels: { action: 'command', kind: 'heap', command: 'kill -9 1' } }])
    expect(named(text, 'jvm.oom')).toEqual([{ name: 'jvm.oom', broker: '1001', labels: { kind: 'heap' } }])
  })

  it('-XX:+CrashOnOutOfMemoryError "Aborting due to" (hotspot debug.cpp wording)', () => {
    expect(named(out('Aborting due to java.lang.OutOfMemoryError: Metaspace'), 'jvm.oom_exit')).toEqual([
      { name: 'jvm.oom_exit', broker: '1001', labels: { action: 'crash', kind: 'metaspace' } },
    ])
  })

  it('VM warnings other than commit_memory (apache/rocketmq#251)', () => {
    // https://github.com/apache/rocketmq/issues/251
    const text = out('OpenJDK 64-Bit Server VM warning: If the number of processors is expected to increase from one, then you should configure the number of parallel GC threads appropriately using -XX:ParallelGCThreads=N')
    expect(named(text, 'jvm.warning')).toEqual([
      {
        name: 'jvm.warning',
        broker: '1001',
        labels: { warning: 'If the number of processors is expected to increase from one, then you should configure the number of parallel GC threads appropriately using -XX:ParallelGCThreads=N' },
      },
    ])
  })

  it('names only catalogue signals', () => {
    for (const n of ['jvm.native_oom', 'jvm.fatal_error', 'jvm.oom_exit', 'jvm.warning', ...Object.values(ERRNO_SIGNALS).map((s) => s.name)]) {
      expect(lookupSignal(n), n).toBeDefined()
    }
  })
})
