import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Node } from 'yaml'
import type { z } from 'zod'

/**
 * Validates a YAML file against its zod schema and says where each problem is, in the form editors
 * and CI annotations read: `file:line:col: path.to.field: message`. One function for every format, so
 * kafka-why.yaml, incident.yaml and rule-test files report problems the same way.
 */

/**
 * How far aliases may expand (the yaml library's maxAliasCount): a real config repeats a block a
 * few times; a "billion laughs" document of a few hundred bytes would otherwise expand to millions.
 */
export const MAX_ALIAS_COUNT = 100

/** A key path into a document, as zod reports it (`['live', 'clusters', 'prod', 'logs', 0]`). */
export type FieldPath = readonly PropertyKey[]

/** One problem, located: what to show, and the parts a caller needs to render it another way. */
export type FileProblem = { file: string; line: number; col: number; path: string; message: string }

/** The outcome of validating one file: the schema's output, or every problem found. */
export type YamlValidation<T> =
  | { ok: true; data: T; locate: (path: FieldPath) => { line: number; col: number } }
  | { ok: false; problems: FileProblem[]; locate: (path: FieldPath) => { line: number; col: number } }

/** `live.clusters.prod.scrape.targets[0].url`: the spelling of a path every message uses. */
export function formatPath(path: FieldPath): string {
  let out = ''
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`
    else out += out === '' ? String(seg) : `.${String(seg)}`
  }
  return out
}

/** A file that does not fit its format: every problem, one per line, for a command to print as is. */
export class FileFormatError extends Error {
  override readonly name = 'FileFormatError'
  constructor(readonly problems: FileProblem[]) {
    super(problems.map(renderProblem).join('\n'))
  }
}

/** `file:line:col: path: message`, the path left out at the document's root. */
export function renderProblem(p: FileProblem): string {
  return `${p.file}:${p.line}:${p.col}: ${p.path ? `${p.path}: ` : ''}${p.message}`
}

/**
 * Parses `text` and checks it with `schema`. YAML syntax errors come back as problems at their
 * position; an empty document is validated as `{}` (or as `emptyAs`), so a missing required key is
 * reported, not a crash.
 */
export function validateYaml<S extends z.ZodType>(text: string, file: string, schema: S, emptyAs: unknown = {}): YamlValidation<z.output<S>> {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, prettyErrors: false })
  const pos = (offset: number) => {
    const p = lineCounter.linePos(offset)
    return { line: p.line, col: p.col }
  }
  const locate = (path: FieldPath, wantKey = false): { line: number; col: number } => {
    let node: unknown = doc.contents
    let at = node as Node | undefined
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]
      let next: unknown
      if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(seg))
        if (pair) next = wantKey && i === path.length - 1 ? pair.key : (pair.value ?? pair.key)
      } else if (isSeq(node) && typeof seg === 'number') next = node.items[seg]
      if (next === undefined || next === null) break
      node = next
      at = next as Node
    }
    const range = at?.range
    return range ? pos(range[0]) : { line: 1, col: 1 }
  }
  if (doc.errors.length) {
    const problems = doc.errors.map((e) => {
      const [line, col] = e.linePos?.[0] ? [e.linePos[0].line, e.linePos[0].col] : [1, 1]
      return { file, line, col, path: '', message: `not valid YAML: ${e.message.split('\n')[0]}` }
    })
    return { ok: false, problems, locate }
  }
  let raw: unknown
  try {
    raw = doc.contents === null ? emptyAs : doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT })
  } catch (err) {
    // The yaml library refuses an alias expanding past the count with a ReferenceError ("Excessive
    // alias count…"): a "billion laughs" document. It is the file's problem, told where the first
    // alias is, never a thrown error a command would print as a stack trace.
    if (!(err instanceof ReferenceError)) throw err
    let first: { line: number; col: number } = { line: 1, col: 1 }
    visit(doc, {
      Alias(_, node) {
        if (node.range) first = pos(node.range[0])
        return visit.BREAK
      },
    })
    return { ok: false, problems: [{ file, ...first, path: '', message: `too many YAML aliases: an alias may expand to at most ${MAX_ALIAS_COUNT} nodes (${err.message.split('\n')[0]})` }], locate }
  }
  const result = schema.safeParse(raw, { reportInput: true })
  if (result.success) return { ok: true, data: result.data, locate }
  const problems: FileProblem[] = []
  for (const issue of result.error.issues) {
    for (const p of describeIssue(issue)) {
      const where = locate(p.path, p.isKey)
      problems.push({ file, ...where, path: formatPath(p.path), message: p.message })
    }
  }
  problems.sort((a, b) => a.line - b.line || a.col - b.col)
  return { ok: false, problems, locate }
}

type Described = { path: FieldPath; message: string; isKey: boolean }

/** Turns zod's issues into the sentences people read: unknown keys one by one, a missing key as "required". */
function describeIssue(issue: z.core.$ZodIssue, prefix: FieldPath = []): Described[] {
  const path = [...prefix, ...(issue.path as FieldPath)]
  if (issue.code === 'invalid_union') {
    // The branch whose type matched (a mapping where a mapping or `true` is allowed) says what is wrong inside it.
    const deeper = issue.errors.filter((branch) => !branch.every((i) => i.code === 'invalid_type' && i.path.length === 0))
    if (deeper.length === 1) return deeper[0].flatMap((i) => describeIssue(i, path))
  }
  if (issue.code === 'unrecognized_keys') {
    const known = issue.message.startsWith('known: ') ? ` (${issue.message})` : ''
    return issue.keys.map((k) => ({ path: [...path, k], message: `unknown key${known}`, isKey: true }))
  }
  if (issue.code === 'invalid_key') return [{ path, message: issue.issues[0]?.message ?? issue.message, isKey: true }]
  if (issue.code === 'invalid_type' && issue.input === undefined && issue.message.startsWith('Invalid input')) {
    return [{ path, message: 'required', isKey: false }]
  }
  return [{ path, message: issue.message, isKey: false }]
}
