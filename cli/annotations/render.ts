import { toCheckstyle } from './checkstyle.js'
import { ANNOTATION_FORMATS, type AnnotationFormat, type Finding } from './finding.js'
import { toGithubAnnotations } from './github.js'
import { toSarif } from './sarif.js'

/** Picks the renderer for a CI report format: the one entry point lint and test call. */
export function renderFindings(format: AnnotationFormat, findings: readonly Finding[], toolName: string): string {
  if (format === 'github') return toGithubAnnotations(findings)
  if (format === 'sarif') return toSarif(findings, toolName)
  return toCheckstyle(findings)
}

/** True for `github`, `sarif` and `checkstyle`. */
export function isAnnotationFormat(s: string | undefined): s is AnnotationFormat {
  return (ANNOTATION_FORMATS as readonly string[]).includes(s ?? '')
}
