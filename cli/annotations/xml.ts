/**
 * Escapes text for XML reports (JUnit, Checkstyle): drops the control characters XML 1.0 forbids and
 * escapes markup. `newlines` also writes line breaks as `&#10;`, which attribute values need to keep
 * them (a parser folds a raw newline in an attribute into a space).
 */
export function escapeXml(s: string, opts: { newlines?: boolean } = {}): string {
  const out = s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
  return opts.newlines ? out.replace(/\n/g, '&#10;') : out
}
