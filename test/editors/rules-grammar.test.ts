import { readFileSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import oniguruma from 'vscode-oniguruma'
import textmate from 'vscode-textmate'
import { ALL_TOKENS, ruleLexer } from '../../dsl/tokens.js'
import { renderRulesGrammar, RULES_SCOPE, scopeOfToken } from '../../editors/rules-grammar.js'

// The grammar is generated from dsl/tokens.ts (`npm run grammar`). Tokenized by VS Code's own
// engine (vscode-textmate on Oniguruma), every token the lexer finds in the shipped rule pack must
// come out as one TextMate token with that token type's scope.
const GRAMMAR_FILE = 'editors/kafka-why-rules.tmLanguage.json'

async function loadGrammar(): Promise<textmate.IGrammar> {
  const wasm = readFileSync(createRequire(import.meta.url).resolve('vscode-oniguruma/release/onig.wasm'))
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength))
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({ createOnigScanner: (p) => new oniguruma.OnigScanner(p), createOnigString: (s) => new oniguruma.OnigString(s) }),
    loadGrammar: async (scope) => (scope === RULES_SCOPE ? textmate.parseRawGrammar(readFileSync(GRAMMAR_FILE, 'utf8'), GRAMMAR_FILE) : null),
  })
  const grammar = await registry.loadGrammar(RULES_SCOPE)
  if (!grammar) throw new Error('grammar did not load')
  return grammar
}

const RULE_FILES = readdirSync('rules').filter((f) => f.endsWith('.rules')).map((f) => `rules/${f}`)

describe('editors/rules-grammar', () => {
  it('is current with dsl/tokens.ts (npm run grammar)', () => {
    expect(readFileSync(GRAMMAR_FILE, 'utf8'), `${GRAMMAR_FILE} is stale: run npm run grammar`).toBe(renderRulesGrammar())
  })

  it('gives every token the lexer can produce a scope', () => {
    for (const t of ALL_TOKENS) expect(() => scopeOfToken(t)).not.toThrow()
  })

  it.each(RULE_FILES)('colours %s as the lexer reads it', async (file) => {
    const text = readFileSync(file, 'utf8')
    expect(ruleLexer.tokenize(text).errors).toEqual([])
    expect(await compareWithLexer(text, file)).toBeGreaterThan(10)
  })

  it('keeps names that start with a keyword whole, as the lexer does', async () => {
    const text = 'rule for_x\n  when count.x > 2/s and orders.over{topic=~"a.*"} != 3 or not runbook_x over 5m\n  then cause "left open\n'
    expect(await compareWithLexer(text, 'inline')).toBe(ruleLexer.tokenize(text).tokens.length)
  })
})

/** Checks each lexer token against the TextMate token at its position; returns how many were checked. */
async function compareWithLexer(text: string, file: string): Promise<number> {
  const grammar = await loadGrammar()
  const lexed = ruleLexer.tokenize(text)
  const lexerTokens = [...lexed.tokens, ...((lexed.groups.comments as typeof lexed.tokens) ?? [])]
  const byLine = new Map<number, { start: number; end: number; scope: string }[]>()
  let state = textmate.INITIAL
  text.split('\n').forEach((line, i) => {
    const r = grammar.tokenizeLine(line, state)
    state = r.ruleStack
    byLine.set(i + 1, r.tokens.map((t) => ({ start: t.startIndex, end: t.endIndex, scope: t.scopes[t.scopes.length - 1] })))
  })
  let checked = 0
  for (const tok of lexerTokens) {
    const expected = scopeOfToken(tok.tokenType)
    if (!expected) continue
    const start = tok.startColumn! - 1
    const hit = byLine.get(tok.startLine!)!.find((t) => t.start === start)
    expect(hit, `${file}:${tok.startLine}:${tok.startColumn} '${tok.image}'`).toMatchObject({ end: start + tok.image.length, scope: expected })
    checked++
  }
  return checked
}
