import { formatCond, signalsOfRule } from '../dsl/index.js'
import type { Rule } from '../dsl/ast.js'
import { CATALOGUE, type CatalogueEntry } from '../signals/catalogue.js'

/**
 * docs/signals.md, generated from the signal catalogue so rule authors have the list of names a
 * rule may use without reading signals/catalogue.ts: each signal's kind, unit, labels, where it
 * comes from, and a condition of a shipped rule that uses it. `npm run signals-doc` writes the page;
 * test/signals/signals-doc.test.ts fails while it is stale.
 */

/** The group a name belongs to: its part before the first dot (`zk`, `gc`, `isr`). */
function family(name: string): string {
  return name.split('.')[0]
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

/** The shortest condition among the shipped rules that use `name`, with the rule's name; undefined when none does. */
function exampleOf(name: string, rules: readonly Rule[]): string | undefined {
  const uses = rules.filter((r) => signalsOfRule(r).includes(name)).map((r) => ({ rule: r.name ?? r.id, cond: formatCond(r.when) }))
  uses.sort((a, b) => a.cond.length - b.cond.length || a.rule.localeCompare(b.rule))
  const first = uses[0]
  return first && `\`when ${cell(first.cond)}\` (${first.rule})`
}

function traits(e: CatalogueEntry): string {
  return [e.clusterWide ? 'cluster-wide' : '', e.lasting ? 'lasting' : ''].filter(Boolean).join(', ')
}

/** The whole page, from the catalogue and the shipped rules. */
export function renderSignalsDoc(rules: readonly Rule[]): string {
  const names = Object.keys(CATALOGUE).sort()
  const entries = CATALOGUE as Record<string, CatalogueEntry>
  const families = [...new Set(names.map(family))]
  const out = [
    '# Signals',
    '',
    '<!-- Generated from signals/catalogue.ts by `npm run signals-doc`; test/signals/signals-doc.test.ts fails when it is stale. Do not edit by hand. -->',
    '',
    `Every signal name a rule may use: ${names.length} signals in ${families.length} families. **kind** is how the store keeps it`,
    '(an *event* happened at a time, a *gauge* is sampled, a *fact* is the latest known value); **unit** is the',
    'dimension of its value (`none`: an event without a value; compare with `> 2s`, `> 80%`, `> 1GiB`);',
    '**labels** are what `name{label="…"}` may filter on. *cluster-wide* signals join every broker\'s',
    'evaluation; a *lasting* signal\'s value is how long it lasted, ending at its time. **example** is a',
    'condition of a shipped rule that uses it (docs/rules.md lists the rules; docs/rule-language.md the syntax).',
    '',
  ]
  for (const f of families) {
    out.push(`## ${f}`, '', '| signal | kind | unit | labels | where it comes from | example |', '|---|---|---|---|---|---|')
    for (const name of names.filter((n) => family(n) === f)) {
      const e = entries[name]
      const kind = [e.kind, traits(e)].filter(Boolean).join(', ')
      const labels = e.labels.length ? e.labels.map((l) => `\`${l}\``).join(', ') : '—'
      out.push(`| \`${name}\` | ${kind} | ${e.unit} | ${labels} | ${cell(e.doc)} | ${exampleOf(name, rules) ?? '—'} |`)
    }
    out.push('')
  }
  return out.join('\n')
}
