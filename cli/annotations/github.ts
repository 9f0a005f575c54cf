import { codeTitle, type Finding } from './finding.js'

/**
 * GitHub Actions workflow commands (`::error file=…,line=…,col=…::message`): printed by a step,
 * each becomes an annotation on that line of the pull request's diff, without any upload.
 * Escaping follows GitHub's toolkit (`@actions/core` command.ts): in the message %, CR and LF are
 * percent-encoded; in property values also ':' and ','.
 */

/** Escapes a workflow command's message. */
export function escapeGithubData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

/** Escapes a workflow command's property value (file, title). */
export function escapeGithubProperty(s: string): string {
  return escapeGithubData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

const COMMAND: Record<Finding['severity'], string> = { error: 'error', warning: 'warning', note: 'notice' }

/** One workflow command per finding, one per line. */
export function toGithubAnnotations(findings: readonly Finding[]): string {
  return findings
    .map((f) => {
      const props = [`file=${escapeGithubProperty(f.file)}`, `line=${f.line}`, `col=${f.col}`]
      if (f.endLine !== undefined) props.push(`endLine=${f.endLine}`)
      if (f.endCol !== undefined && (f.endLine === undefined || f.endLine === f.line)) props.push(`endColumn=${f.endCol}`)
      props.push(`title=${escapeGithubProperty(`kafka-why ${f.code}: ${codeTitle(f.code)}`)}`)
      const message = f.hint ? `${f.message}\nhint: ${f.hint}` : f.message
      return `::${COMMAND[f.severity]} ${props.join(',')}::${escapeGithubData(message)}`
    })
    .join('\n')
}
