import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import YAML from 'yaml'

/**
 * Renders deploy/helm/kafka-why the way `helm template` would, for the subset of Go templates the
 * chart keeps to (helm itself is not installable on the machine the tests run on): `{{ .Release.Name }}`,
 * `.Release.Namespace`, `.Chart.Name`, `.Chart.AppVersion`, `{{ .Values.a.b }}`, the `quote`, `toYaml`
 * and `nindent N` pipeline steps, `{{- if .Values.x }} … {{- end }}`, and `{{-` / `-}}` whitespace
 * trimming. Anything else in a template is an error, so the chart cannot drift outside what is checked.
 */

/** What a release is installed as, and the values given on top of values.yaml. */
export type RenderInput = { release?: string; namespace?: string; values?: Record<string, unknown> }

type Scope = { Release: { Name: string; Namespace: string }; Chart: Record<string, unknown>; Values: Record<string, unknown> }

function lookup(scope: Scope, ref: string): unknown {
  if (!ref.startsWith('.')) throw new Error(`unsupported template value '${ref}'`)
  let v: unknown = scope
  for (const part of ref.slice(1).split('.')) v = v === undefined || v === null ? undefined : (v as Record<string, unknown>)[part]
  return v
}

function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0
  if (v && typeof v === 'object') return Object.keys(v).length > 0
  return Boolean(v)
}

function toYaml(v: unknown): string {
  return YAML.stringify(v, { lineWidth: 0 }).replace(/\n$/, '')
}

function evaluate(expr: string, scope: Scope): string {
  const steps = expr.split('|').map((s) => s.trim())
  let head = steps[0]
  let value: unknown
  if (head.startsWith('toYaml ')) value = toYaml(lookup(scope, head.slice(7).trim()))
  else value = lookup(scope, head)
  let text = value === undefined || value === null ? '' : typeof value === 'string' ? value : typeof value === 'object' ? toYaml(value) : String(value)
  for (const step of steps.slice(1)) {
    const [fn, arg] = step.split(/\s+/)
    if (fn === 'quote') text = JSON.stringify(text)
    else if (fn === 'nindent') {
      const pad = ' '.repeat(Number(arg))
      text = '\n' + text.replace(/\n$/, '').split('\n').map((l) => (l ? pad + l : l)).join('\n')
    } else throw new Error(`unsupported template function '${fn}'`)
  }
  head = ''
  return text
}

/** Renders one template's text. */
export function renderTemplate(text: string, scope: Scope): string {
  const tokens: { kind: 'text' | 'action'; body: string }[] = []
  const re = /\{\{(-?)\s*([\s\S]*?)\s*(-?)\}\}/g
  let last = 0
  let trimNext = false
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let before = text.slice(last, m.index)
    if (trimNext) before = before.replace(/^\s+/, '')
    if (m[1] === '-') before = before.replace(/\s+$/, '')
    tokens.push({ kind: 'text', body: before }, { kind: 'action', body: m[2] })
    trimNext = m[3] === '-'
    last = re.lastIndex
  }
  tokens.push({ kind: 'text', body: trimNext ? text.slice(last).replace(/^\s+/, '') : text.slice(last) })
  const out: string[] = []
  const stack: boolean[] = []
  const on = () => stack.every(Boolean)
  for (const t of tokens) {
    if (t.kind === 'text') {
      if (on()) out.push(t.body)
    } else if (t.body.startsWith('if ')) stack.push(truthy(lookup(scope, t.body.slice(3).trim())))
    else if (t.body === 'end') {
      if (stack.pop() === undefined) throw new Error('{{ end }} without {{ if }}')
    } else if (t.body.startsWith('/*')) continue
    else if (on()) out.push(evaluate(t.body, scope))
  }
  if (stack.length) throw new Error('{{ if }} without {{ end }}')
  return out.join('')
}

/** Deep-merges `over` onto `base` as helm merges --set/-f values onto values.yaml. */
function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(over)) {
    const b = out[k]
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b) ? merge(b as Record<string, unknown>, v as Record<string, unknown>) : v
  }
  return out
}

/** Every manifest the chart renders, parsed, with the template file it came from. */
export function renderChart(chartDir: string, input: RenderInput = {}): { template: string; text: string; manifest: Record<string, unknown> }[] {
  const chart = YAML.parse(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as Record<string, unknown>
  const values = merge(YAML.parse(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>, input.values ?? {})
  const scope: Scope = { Release: { Name: input.release ?? 'kafka-why', Namespace: input.namespace ?? 'default' }, Chart: { Name: chart.name, AppVersion: chart.appVersion }, Values: values }
  const dir = path.join(chartDir, 'templates')
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => {
      const text = renderTemplate(readFileSync(path.join(dir, f), 'utf8'), scope)
      return YAML.parseAllDocuments(text).map((d) => {
        if (d.errors.length) throw new Error(`${f}: ${d.errors[0].message}\n${text}`)
        return { template: f, text, manifest: d.toJS() as Record<string, unknown> }
      })
    })
}
