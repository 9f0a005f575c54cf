import type { Draft, LogRecord, Matcher, MatchState } from './matchers.js'
import type { LogFormat } from './types.js'
import { ERRNO_TABLE, errnoOfText, errnoTexts, LINUX_ERRNO, type ErrnoName } from './wording/errno.js'

/**
 * What the JVM and the operating system say when a broker dies under them: the OutOfMemoryError
 * kinds, the fatal-error banners the JVM prints on stdout (kafkaServer.out) with no timestamp of
 * their own, and the C library's errno texts inside `IOException`s, in every locale of the errno
 * table. Kept apart from the Kafka wording in matchers.ts because it comes from other sources (the
 * JDK's hotspot and java.nio code, glibc's translations) and changes with them, not with Kafka.
 *
 * Banner lines do not start a record in any Kafka layout, so in a file with timestamped neighbours
 * they join the record above them and take its time; their rows therefore look at every line of a
 * record (`scope: 'record'`) and read the rest of the banner from the lines that follow.
 */

const KAFKA_CLIENT: readonly LogFormat[] = ['kafka', 'client']
const ANY: readonly LogFormat[] = ['kafka', 'gc', 'client']

/**
 * Where the JDK puts an errno text: at the end of an exception's message (IOException, SocketException,
 * java.nio's FileSystemException "path: text", java.io's FileNotFoundException "path (text)",
 * ProcessBuilder's "…: error=12, text"). One prefilter literal for all of them instead of one per
 * translation: a hundred short literals (CJK translations are 4-9 characters) cut how far the literal
 * scanner skips on every line of every log, while exception lines are a small share of any log.
 */
const EXCEPTION_LITERAL = 'Exception: '

/** hotspot's own warnings that end in strerror(): "VM warning: Cannot open file <f> due to <text>" (ostream.cpp). */
const VM_WARNING_LITERAL = ' VM warning: '

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Prefilter literals that find every text of these errno values as the JDK writes it: any exception
 * line, any JVM warning, and the English text wherever it stands (a message that quotes strerror()).
 */
export function errnoLiterals(names: readonly ErrnoName[]): string[] {
  return [EXCEPTION_LITERAL, VM_WARNING_LITERAL, ...names.flatMap((n) => ERRNO_TABLE.errno[n].en)]
}

/**
 * The regex of an errno row: a text of these values where the JDK puts it, at the start of the
 * message, after ": " (exception class or path), "(" (FileNotFoundException), ", " (ProcessBuilder's
 * "error=12, …") or "due to " (hotspot's "Cannot open file <f> due to …"). The JVM's own `error='…'`
 * quotes are left to the native-memory row. Group 1 is the text; longest texts come first so "Too
 * many open files in system" is not read as EMFILE.
 */
export function errnoPattern(names: readonly ErrnoName[]): RegExp {
  return new RegExp(`(?:^|[:(,] ?|due to )(${errnoTexts(names).map(escapeRe).join('|')})(?![A-Za-z])`)
}

/** The file a line names in front of its errno text ("…FileSystemException: /d/x.log: text", "Cannot open file /f due to"). */
function pathIn(line: string): string | undefined {
  const m = /(?:FileSystemException|FileNotFoundException|AccessDeniedException): (\/[^:(]*?)(?:: | \(|\s*$)|Cannot open file (\S+) due to /.exec(line)
  return m?.[1] ?? m?.[2]
}

/** The log dir a Kafka message names ("… in dir /d", "… in log dir /d"). */
function dirIn(message: string): string | undefined {
  return /\bin (?:log )?dir (\S+?)(?:\s|$)/.exec(message)?.[1]
}

/** Labels an errno signal carries: the log dir the record names and the file the exception names. */
export function errnoLabels(m: RegExpExecArray, rec: LogRecord): Record<string, string> {
  const labels: Record<string, string> = {}
  const dir = dirIn(rec.header.message)
  if (dir) labels.dir = dir
  const path = pathIn(m.input)
  if (path) labels.path = path
  return labels
}

/**
 * A table row for errno values: literals and regex from the errno table (every locale), and `build`
 * told which errno matched. Rows of matchers.ts use it too, so no row spells an errno text itself.
 */
export function errnoMatcher(
  names: readonly ErrnoName[],
  formats: readonly LogFormat[],
  build: (errno: ErrnoName, m: RegExpExecArray, rec: LogRecord) => Draft | undefined,
): Matcher {
  return {
    literals: errnoLiterals(names),
    scope: 'record',
    formats,
    re: errnoPattern(names),
    build: (m, rec) => {
      const errno = errnoOfText(m[1])
      return errno ? build(errno, m, rec) : undefined
    },
  }
}

const OOM_KINDS: Record<string, string> = {
  'Java heap space': 'heap',
  'GC overhead limit exceeded': 'gc_overhead',
  'Map failed': 'map',
  'Direct buffer memory': 'direct',
  Metaspace: 'metaspace',
  'Compressed class space': 'metaspace',
  'PermGen space': 'metaspace',
  'Requested array size exceeds VM limit': 'array_size',
  'C heap space': 'native',
}

/**
 * `java.lang.OutOfMemoryError` and its message, as the JDK words each kind: hotspot's universe.cpp
 * "Java heap space" (JDK 11+ may add ": failed reallocation of scalar replaced objects"), "GC overhead
 * limit exceeded" (Parallel GC), "Metaspace", "Compressed class space", "Requested array size exceeds
 * VM limit", "C heap space" (JDK 17+, a failed native allocation for Java code); JDK 7 "PermGen
 * space"; java.nio.Bits "Direct buffer memory" (JDK 8-15) and "Cannot reserve N bytes of direct
 * buffer memory (allocated: A, limit: L)" (JDK 16+); FileChannelImpl.map "Map failed"; Thread.start
 * "unable to create new native thread" (JDK 8-17) and "unable to create native thread: possibly out
 * of memory or process/resource limits reached" (JDK 11+ jvm.cpp).
 */
export const OOM_RE = /java\.lang\.OutOfMemoryError(?:: ?(.*))?/

/** The `kind` label of an OutOfMemoryError message; "other" for a message no JDK kind has. */
export function oomKind(message: string | undefined): string {
  const text = (message ?? '').trim()
  for (const [prefix, kind] of Object.entries(OOM_KINDS)) if (text.startsWith(prefix)) return kind
  if (/^unable to create (?:new )?native thread/.test(text)) return 'native_thread'
  if (/^Cannot reserve \d+ bytes of direct buffer memory/.test(text)) return 'direct'
  return 'other'
}

/** Index of the line a record-scope match was found on (line 0's regex runs on the message, not the raw line). */
function lineOf(m: RegExpExecArray, rec: LogRecord): number {
  const i = rec.lines.indexOf(m.input)
  return i < 0 ? 0 : i
}

/** How far past a banner's first line its details are looked for. */
const BANNER_LINES = 40

const HS_ERR_RE = /^#?\s*(\S*hs_err_pid\d+\.log)\s*$/

/** The hs_err file a banner names ("# An error report file … is saved as:" then "# /path/hs_err_pidN.log"). */
function hsErrIn(lines: readonly string[], from: number): string | undefined {
  for (let i = from; i < Math.min(lines.length, from + BANNER_LINES); i++) {
    const h = HS_ERR_RE.exec(lines[i]) ?? /is saved as: ?(\S*hs_err_pid\d+\.log)/.exec(lines[i])
    if (h) return h[1]
  }
  return undefined
}

const NATIVE_ALLOC_RE = /Native memory allocation \((mmap|malloc|mprotect)\) failed to (?:map|allocate|protect) (\d+) bytes(?:\. Error detail: (.+?)| for (.+?))?\.?\s*$/
const COMMIT_RE = /os::commit_memory\(0x[0-9a-fA-F]+, (\d+), (?:\d+, )?\d\) failed; error='([^']*)' \(errno=(\d+)\)/

/**
 * Where the last native-memory line of a file stood in its banner (1 the commit_memory warning, 2 the
 * headline, 3 the allocation line). When each line is a record of its own (a file with no layout),
 * the later lines of one banner continue the event the first one reported rather than start another.
 */
const nativeBanner = new WeakMap<MatchState, { stage: number; single: boolean; at: number | undefined }>()

/** False for a line that continues, one record later, the banner a previous single-line record began. */
function startsNativeEvent(m: RegExpExecArray, rec: LogRecord, st: MatchState, at: number | undefined): boolean {
  const stage = m[0].startsWith('os::commit_memory') ? 1 : m[0].startsWith('There is insufficient') ? 2 : 3
  const single = rec.lines.length === 1
  const prev = nativeBanner.get(st)
  nativeBanner.set(st, { stage, single, at })
  return !(prev && prev.single && single && stage > prev.stage && prev.at === at)
}

/** Reads a native out-of-memory banner (and the os::commit_memory warning before it) into one signal. */
function nativeOom(m: RegExpExecArray, rec: LogRecord): Draft {
  const from = lineOf(m, rec)
  const labels: Record<string, string> = {}
  let bytes: number | undefined
  for (let i = from; i < Math.min(rec.lines.length, from + BANNER_LINES); i++) {
    const line = i === 0 ? rec.header.message : rec.lines[i]
    const a = NATIVE_ALLOC_RE.exec(line)
    if (a) {
      labels.allocator = a[1]
      bytes = Number(a[2])
      const detail = a[3] ?? a[4]
      if (detail) labels.detail = detail
      continue
    }
    const c = COMMIT_RE.exec(line)
    if (c) {
      bytes ??= Number(c[1])
      labels.allocator ??= 'mmap'
      labels.errno = LINUX_ERRNO[Number(c[3])] ?? errnoOfText(c[2]) ?? `errno ${c[3]}`
      continue
    }
    // Without a size the banner says what failed on its own line ("# Cannot create GC thread. Out of system resources.").
    if (i > from && labels.detail === undefined && bytes === undefined && /^#\s+[A-Z]/.test(line) && !/insufficient memory|error report file/.test(line)) {
      labels.detail = line.replace(/^#\s+/, '').trim()
    }
  }
  const hsErr = hsErrIn(rec.lines, from)
  if (hsErr) labels.hs_err = hsErr
  return bytes === undefined ? { name: 'jvm.native_oom', labels } : { name: 'jvm.native_oom', value: bytes, labels }
}

/** Reads a crash banner: the signal or error, the problematic frame, the hs_err file. */
function fatalError(m: RegExpExecArray, rec: LogRecord): Draft {
  const from = lineOf(m, rec)
  const labels: Record<string, string> = {}
  for (let i = from + 1; i < Math.min(rec.lines.length, from + BANNER_LINES); i++) {
    const line = rec.lines[i]
    const s = /^#\s+([A-Z][A-Z_]+) \(0x[0-9a-fA-F]+\) at pc=/.exec(line)
    if (s) labels.signal ??= s[1]
    const e = /^#\s+(Internal Error|Out of Memory Error) \(([^)]*)\)/.exec(line)
    if (e) {
      labels.signal ??= e[1] === 'Internal Error' ? 'internal_error' : 'out_of_memory_error'
      labels.detail ??= e[2]
    }
    if (/^#\s*Problematic frame:/.test(line) && i + 1 < rec.lines.length) labels.frame ??= rec.lines[i + 1].replace(/^#\s*/, '').trim()
  }
  const hsErr = hsErrIn(rec.lines, from)
  if (hsErr) labels.hs_err = hsErr
  return { name: 'jvm.fatal_error', labels }
}

/** A JVM warning's text as a template: addresses and numbers masked, so one warning is one label value. */
function warningTemplate(text: string): string {
  return text
    .replace(/0x[0-9a-fA-F]+/g, '0x…')
    .replace(/\d+/g, 'N')
    .trim()
    .slice(0, 200)
}

/** The rows, spliced into MATCHERS after the Kafka rows; each names the JDK or glibc source of its wording. */
export const JVM_OS_MATCHERS: readonly Matcher[] = [
  // J1. EDQUOT "Disk quota exceeded" (glibc, every locale of the errno table).
  errnoMatcher(['EDQUOT'], KAFKA_CLIENT, (_e, m, r) => ({ name: 'disk.quota_exceeded', labels: errnoLabels(m, r) })),
  // J2. EROFS "Read-only file system": ext4/xfs remount a disk read-only after I/O errors.
  errnoMatcher(['EROFS'], KAFKA_CLIENT, (_e, m, r) => ({ name: 'disk.read_only', labels: errnoLabels(m, r) })),
  // J3. EIO "Input/output error".
  errnoMatcher(['EIO'], KAFKA_CLIENT, (_e, m, r) => ({ name: 'disk.io_error', labels: errnoLabels(m, r) })),
  // J4. ESTALE "Stale file handle" (glibc 2.17+), "Stale NFS file handle" (older): a log dir on NFS.
  errnoMatcher(['ESTALE'], KAFKA_CLIENT, (_e, m, r) => ({ name: 'fs.stale_handle', labels: errnoLabels(m, r) })),
  // J5. EACCES "Permission denied" (java.io, sockets), and java.nio's AccessDeniedException, whose
  //     message is the path alone (sun.nio.fs.UnixException.translateToIOException).
  {
    ...errnoMatcher(['EACCES'], KAFKA_CLIENT, (_e, m, r) => ({ name: 'fs.permission_denied', labels: errnoLabels(m, r) })),
    re: new RegExp(`${errnoPattern(['EACCES']).source}|java\\.nio\\.file\\.AccessDeniedException: (\\S+)`),
    build: (m, r) => {
      if (m[1] !== undefined && errnoOfText(m[1]) === undefined) return undefined
      const labels = errnoLabels(m, r)
      if (m[2] !== undefined) labels.path = m[2]
      return { name: 'fs.permission_denied', labels }
    },
  },
  // J6. ENOMEM "Cannot allocate memory" from a system call the JDK reports: fork of a command
  //     (ProcessBuilder "error=12, Cannot allocate memory"), socket or file operations.
  errnoMatcher(['ENOMEM'], KAFKA_CLIENT, (_e, m, r) => ({ name: 'mem.cannot_allocate', labels: errnoLabels(m, r) })),
  // J7. hotspot vmError.cpp (JDK 8-25) on stdout: "# There is insufficient memory for the Java Runtime
  //     Environment to continue." then "# Native memory allocation (mmap) failed to map N bytes for
  //     committing reserved memory." (JDK 8-20) / "… N bytes. Error detail: …" (JDK 21+), "(malloc) failed
  //     to allocate N bytes for …", "(mprotect) failed to protect …"; os_linux.cpp's warning before it,
  //     "OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x…, N, 0) failed; error='Cannot
  //     allocate memory' (errno=12)" (JDK 8 prints strerror() there, so the error text is localized;
  //     the errno number names it in any locale).
  {
    literals: ['There is insufficient memory for the Java Runtime Environment', 'Native memory allocation (', 'os::commit_memory('],
    scope: 'record',
    formats: ANY,
    re: /There is insufficient memory for the Java Runtime Environment|Native memory allocation \((?:mmap|malloc|mprotect)\) failed|os::commit_memory\(0x[0-9a-fA-F]+, \d+, (?:\d+, )?\d\) failed/,
    build: (m, r, st, at) => (startsNativeEvent(m, r, st, at) ? nativeOom(m, r) : undefined),
  },
  // J8. hotspot vmError.cpp crash banner: "# A fatal error has been detected by the Java Runtime
  //     Environment:" then "#  SIGSEGV (0xb) at pc=0x…, pid=N, tid=N" (SIGBUS (0x7), SIGILL, …) or
  //     "#  Internal Error (file.cpp:N), pid=…", "# Problematic frame:" and its frame, and "# An error
  //     report file with more information is saved as:" / "# /path/hs_err_pidN.log".
  {
    literals: ['A fatal error has been detected by the Java Runtime Environment'],
    scope: 'record',
    formats: ANY,
    re: /A fatal error has been detected by the Java Runtime Environment/,
    build: (m, r) => fatalError(m, r),
  },
  // J9. hotspot debug.cpp report_java_out_of_memory (JDK 8-25): -XX:+ExitOnOutOfMemoryError "Terminating
  //     due to java.lang.OutOfMemoryError: Java heap space" (exit code 3), -XX:+CrashOnOutOfMemoryError
  //     "Aborting due to java.lang.OutOfMemoryError: …"; vmError.cpp VM_ReportJavaOutOfMemory for
  //     -XX:OnOutOfMemoryError: "# -XX:OnOutOfMemoryError="kill -9 %p"" then "#   Executing /bin/sh -c
  //     "kill -9 1234"...".
  {
    literals: ['Terminating due to java.lang.OutOfMemoryError', 'Aborting due to java.lang.OutOfMemoryError', '-XX:OnOutOfMemoryError='],
    scope: 'record',
    formats: ANY,
    re: /(Terminating|Aborting) due to java\.lang\.OutOfMemoryError(?:: (.*))?|^#\s*-XX:OnOutOfMemoryError=/,
    build: (m, r) => {
      if (m[1] !== undefined) return { name: 'jvm.oom_exit', labels: { action: m[1] === 'Terminating' ? 'exit' : 'crash', kind: oomKind(m[2]) } }
      const from = lineOf(m, r)
      const labels: Record<string, string> = { action: 'command' }
      const before = from > 0 ? /^#\s*java\.lang\.OutOfMemoryError: (.*)$/.exec(r.lines[from - 1]) : null
      if (before) labels.kind = oomKind(before[1])
      for (let i = from + 1; i < Math.min(r.lines.length, from + 5); i++) {
        const c = /^#\s+Executing (?:\/bin\/sh -c |\/usr\/bin\/sh -c )?"(.*)"\.\.\.\s*$/.exec(r.lines[i])
        if (c) {
          labels.command = c[1]
          break
        }
      }
      return { name: 'jvm.oom_exit', labels }
    },
  },
  // J10. hotspot debug.cpp warning(): "Java HotSpot(TM) 64-Bit Server VM warning: …", "OpenJDK 64-Bit
  //      Server VM warning: …" on stdout (e.g. "CodeCache is full. Compiler has been disabled.",
  //      "Insufficient space for shared memory file: …"). The os::commit_memory warning is J7's.
  {
    literals: [' VM warning: '],
    scope: 'record',
    formats: ANY,
    re: /(?:Java HotSpot\(TM\)|OpenJDK|OpenJ9)[\w() -]* VM warning: (?!INFO: os::commit_memory\()(.*)$/,
    build: (m) => ({ name: 'jvm.warning', labels: { warning: warningTemplate(m[1]) } }),
  },
]
