import { SLACK_LIMITS as L } from '../bot/render/slack-limits.js'

/**
 * An independent check of Block Kit payloads against Slack's documented limits and required
 * fields; the stand-in API server runs it on every call, so a renderer bug fails a test the way
 * Slack would fail it (invalid_blocks).
 */
export function validateBlocks(blocks: unknown): string[] {
  const problems: string[] = []
  if (!Array.isArray(blocks)) return ['blocks: not an array']
  problems.push(...unescaped(blocks))
  if (blocks.length > L.blocksPerMessage) problems.push(`blocks: ${blocks.length} > ${L.blocksPerMessage}`)
  blocks.forEach((b: Record<string, any>, i) => {
    const at = `blocks[${i}]`
    switch (b?.type) {
      case 'header':
        if (b.text?.type !== 'plain_text') problems.push(`${at}.text: header needs plain_text`)
        if (!b.text?.text) problems.push(`${at}.text.text: empty`)
        if ((b.text?.text ?? '').length > L.headerText) problems.push(`${at}.text: ${b.text.text.length} > ${L.headerText}`)
        break
      case 'section': {
        if (!b.text && !b.fields) problems.push(`${at}: section needs text or fields`)
        if (b.text && (!b.text.text || typeof b.text.text !== 'string')) problems.push(`${at}.text.text: empty`)
        if (b.text && b.text.text.length > L.sectionText) problems.push(`${at}.text: ${b.text.text.length} > ${L.sectionText}`)
        if (b.fields && b.fields.length > L.sectionFields) problems.push(`${at}.fields: ${b.fields.length} > ${L.sectionFields}`)
        for (const [j, f] of (b.fields ?? []).entries()) if (f.text.length > L.fieldText) problems.push(`${at}.fields[${j}]: too long`)
        break
      }
      case 'context':
        if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 10) problems.push(`${at}.elements: 1..10 required`)
        for (const e of b.elements ?? []) if (!e.text || e.text.length > L.contextText) problems.push(`${at}: context text empty or too long`)
        break
      case 'divider':
        break
      case 'actions': {
        if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > L.actionsElements) problems.push(`${at}.elements: 1..${L.actionsElements} required`)
        const ids = new Set<string>()
        for (const [j, e] of (b.elements ?? []).entries()) {
          const eat = `${at}.elements[${j}]`
          if (!e.action_id || e.action_id.length > L.actionId) problems.push(`${eat}.action_id: missing or too long`)
          if (ids.has(e.action_id)) problems.push(`${eat}.action_id: '${e.action_id}' repeated in block`)
          ids.add(e.action_id)
          if (e.type === 'button') {
            if (e.text?.type !== 'plain_text' || !e.text.text || e.text.text.length > L.buttonText) problems.push(`${eat}.text: plain_text 1..${L.buttonText}`)
            if (e.value !== undefined && e.value.length > L.buttonValue) problems.push(`${eat}.value: > ${L.buttonValue}`)
            if (e.style !== undefined && e.style !== 'primary' && e.style !== 'danger') problems.push(`${eat}.style: '${e.style}'`)
            if (e.confirm) {
              const c = e.confirm
              if (!c.title?.text || c.title.text.length > L.confirmTitle) problems.push(`${eat}.confirm.title`)
              if (!c.text?.text || c.text.text.length > L.confirmText) problems.push(`${eat}.confirm.text`)
              if (!c.confirm?.text || c.confirm.text.length > L.confirmButton) problems.push(`${eat}.confirm.confirm`)
              if (!c.deny?.text || c.deny.text.length > L.confirmButton) problems.push(`${eat}.confirm.deny`)
            }
          } else if (e.type === 'static_select') {
            if (!Array.isArray(e.options) || e.options.length === 0 || e.options.length > L.selectOptions) problems.push(`${eat}.options: 1..${L.selectOptions}`)
            for (const o of e.options ?? []) if (!o.text?.text || o.text.text.length > L.optionText || !o.value) problems.push(`${eat}: bad option`)
          } else problems.push(`${eat}.type: '${e.type}' not expected`)
        }
        break
      }
      default:
        problems.push(`${at}.type: '${b?.type}' unknown`)
    }
  })
  return problems
}

/**
 * Slack reads <…> as a link, a mention or a broadcast. The bot writes mentions only of the people
 * and channels of the test world (ids U0…/C0… and the console's, from config and requests) and links
 * only to rule runbooks (their https hosts below); it never broadcasts. Anything else inside <…>, and
 * any other raw '<' or '>' in mrkdwn, came from data unescaped: a group named <!channel> would ping.
 */
const TRUSTED_MENTION = /^<(?:@(?:U0[A-Z0-9]+|UCONSOLE|UBOT)|#(?:C0[A-Z0-9]+|CCONSOLE))>$/
const RUNBOOK_HOSTS = ['kafka.apache.org', 'issues.apache.org', 'cwiki.apache.org', 'nvd.nist.gov', 'example.org']
const CONTROL = /<[^<>]*>/g

/** Problems with one mrkdwn text: untrusted control sequences and raw angle brackets. */
export function mrkdwnProblems(text: string): string[] {
  const out: string[] = []
  for (const m of text.match(CONTROL) ?? []) {
    if (m.startsWith('<!')) out.push(`broadcast ${m} in mrkdwn`)
    else if (/^<[@#]/.test(m) && !TRUSTED_MENTION.test(m)) out.push(`mention ${m} not of the test world (from data?)`)
    else if (/^<https?:/.test(m) && !isRunbook(m)) out.push(`link ${m} not to a runbook (from data?)`)
    else if (!/^<(?:[@#]|https?:)/.test(m)) out.push(`control sequence ${m} in mrkdwn`)
  }
  if (/[<>]/.test(text.replace(CONTROL, ''))) out.push('unescaped < or > in mrkdwn')
  return out
}

/** The fallback `text` is plain: any raw '<' or '>' in it is data Slack would read as markup. */
export function fallbackProblems(text: unknown): string[] {
  return typeof text === 'string' && /[<>]/.test(text) ? [`text: raw < or > in the fallback text (${JSON.stringify(text.slice(0, 80))})`] : []
}

function isRunbook(m: string): boolean {
  try {
    const url = new URL(m.slice(1, -1).split('|')[0])
    return url.protocol === 'https:' && RUNBOOK_HOSTS.includes(url.hostname) && !m.includes('|')
  } catch {
    return false
  }
}

function unescaped(blocks: unknown[]): string[] {
  const out: string[] = []
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${at}[${i}]`))
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>
      if (o.type === 'mrkdwn' && typeof o.text === 'string') for (const p of mrkdwnProblems(o.text)) out.push(`${at}.text: ${p}`)
      for (const [k, v] of Object.entries(o)) visit(v, `${at}.${k}`)
    }
  }
  visit(blocks, 'blocks')
  return out
}
