/**
 * Writes adapters/logs/wording/errno-texts.json: the C library's text for each errno a broker's
 * `IOException` can carry, in every locale brokers run under, read from the GNU C Library's own
 * translation catalogues (the `libc.mo` files of Debian's `libc-l10n` package). The JDK builds those
 * exception messages with strerror(), so a broker started under LANG=zh_CN.UTF-8 logs
 * "java.io.IOException: 设备上没有空间" instead of "No space left on device"; typing those texts by
 * hand would get them subtly wrong.
 *
 * Run by hand after `apt-get install libc-l10n`:
 *   npx tsx lab/wording/errno-texts.ts [--locale-dir /usr/share/locale] [--out adapters/logs/wording/errno-texts.json]
 * The version of the package is written into the table, so a rerun on a newer glibc shows what changed.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { ErrnoName, ErrnoTable } from '../../adapters/logs/wording/errno.js'

/** The errno values whose text tells why a broker failed, with the English message glibc's strerror() gives. */
export const ERRNO_MESSAGES: Record<ErrnoName, readonly string[]> = {
  ENOSPC: ['No space left on device'],
  EDQUOT: ['Disk quota exceeded'],
  EMFILE: ['Too many open files'],
  ENFILE: ['Too many open files in system'],
  EROFS: ['Read-only file system'],
  EIO: ['Input/output error'],
  ENOMEM: ['Cannot allocate memory'],
  // glibc before 2.17 called ESTALE "Stale NFS file handle" (RHEL/CentOS 6 still ship 2.12).
  ESTALE: ['Stale file handle', 'Stale NFS file handle'],
  EACCES: ['Permission denied'],
  ENOENT: ['No such file or directory'],
}

/** Locales brokers are seen running under in public incident reports; glibc's catalogue names. */
export const LOCALES = ['zh_CN', 'zh_TW', 'ja', 'ko', 'de', 'fr', 'es', 'ru', 'pt_BR'] as const

/** A GNU message catalogue: msgid → msgstr, and the header fields. */
export type MoCatalogue = { messages: Map<string, string>; header: Record<string, string> }

/**
 * Reads a GNU .mo file (magic 0x950412de, either byte order): two tables of (length, offset) pairs,
 * originals and translations, at the offsets the header gives. Plural and context entries keep their
 * NUL/EOT separators; errno texts have neither.
 */
export function readMo(bytes: Buffer): MoCatalogue {
  if (bytes.length < 28) throw new Error('not a GNU .mo file: shorter than its header')
  const magic = bytes.readUInt32LE(0)
  const le = magic === 0x950412de
  if (!le && magic !== 0xde120495) throw new Error(`not a GNU .mo file: magic 0x${magic.toString(16)}`)
  const u32 = (at: number) => {
    if (at + 4 > bytes.length) throw new Error(`truncated .mo file: offset ${at} past its end`)
    return le ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at)
  }
  const count = u32(8)
  const originals = u32(12)
  const translations = u32(16)
  const raw: [Buffer, Buffer][] = []
  for (let i = 0; i < count; i++) {
    const slice = (table: number) => {
      const len = u32(table + i * 8)
      const off = u32(table + i * 8 + 4)
      if (off + len > bytes.length) throw new Error(`truncated .mo file: string ${i} past its end`)
      return bytes.subarray(off, off + len)
    }
    raw.push([slice(originals), slice(translations)])
  }
  const headerText = raw.find(([id]) => id.length === 0)?.[1].toString('utf8') ?? ''
  const header: Record<string, string> = {}
  for (const line of headerText.split('\n')) {
    const c = line.indexOf(':')
    if (c > 0) header[line.slice(0, c).trim()] = line.slice(c + 1).trim()
  }
  const charset = /charset=([\w-]+)/.exec(header['Content-Type'] ?? '')?.[1] ?? 'UTF-8'
  const decoder = new TextDecoder(charset)
  const messages = new Map<string, string>()
  for (const [id, str] of raw) if (id.length > 0) messages.set(decoder.decode(id), decoder.decode(str))
  return { messages, header }
}

/** The installed libc-l10n package version, for the table's `source`. */
function packageVersion(): string {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Version}', 'libc-l10n'], { encoding: 'utf8' }).trim()
  } catch {
    throw new Error('libc-l10n is not installed (dpkg-query found no version): apt-get install libc-l10n')
  }
}

/** Builds the table from the catalogues under `localeDir`. */
export function buildErrnoTable(localeDir: string, version: string): ErrnoTable {
  const catalogues: Record<string, string> = {}
  const errno = {} as ErrnoTable['errno']
  const untranslated = {} as ErrnoTable['untranslated']
  const names = Object.keys(ERRNO_MESSAGES) as ErrnoName[]
  for (const name of names) {
    const ids = ERRNO_MESSAGES[name]
    errno[name] = { en: [...ids] }
    untranslated[name] = []
  }
  for (const locale of LOCALES) {
    const path = join(localeDir, locale, 'LC_MESSAGES', 'libc.mo')
    if (!existsSync(path)) throw new Error(`${path}: missing; is libc-l10n installed?`)
    const mo = readMo(readFileSync(path))
    catalogues[locale] = mo.header['Project-Id-Version'] ?? 'unknown'
    for (const name of names) {
      const texts = ERRNO_MESSAGES[name].map((id) => mo.messages.get(id)).filter((t): t is string => t !== undefined && t !== '')
      if (texts.length > 0) errno[name][locale] = [...new Set(texts)]
      else untranslated[name].push(locale)
    }
  }
  return { source: `Debian libc-l10n ${version} (glibc translation catalogues, <locale>/LC_MESSAGES/libc.mo)`, catalogues, errno, untranslated }
}

/** Two-space JSON with each list of texts on one line, so a regenerated table diffs line by line. */
export function formatTable(table: ErrnoTable): string {
  return JSON.stringify(table, null, 2).replace(/\[\n\s+("(?:[^"\\]|\\.)*"(?:,\n\s+"(?:[^"\\]|\\.)*")*)\n\s+\]/g, (_m, items: string) => `[${items.replace(/,\n\s+/g, ', ')}]`) + '\n'
}

function main(): void {
  const { values } = parseArgs({
    options: {
      'locale-dir': { type: 'string', default: '/usr/share/locale' },
      out: { type: 'string', default: new URL('../../adapters/logs/wording/errno-texts.json', import.meta.url).pathname },
    },
  })
  const table = buildErrnoTable(values['locale-dir'] as string, packageVersion())
  writeFileSync(values.out as string, formatTable(table))
  const n = Object.values(table.errno).reduce((sum, byLocale) => sum + Object.values(byLocale).flat().length, 0)
  process.stdout.write(`${values.out}: ${Object.keys(table.errno).length} errno values, ${n} texts, ${LOCALES.length + 1} locales\n`)
}

if (import.meta.url === `file://${process.argv[1]}`) main()
