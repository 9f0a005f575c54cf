import { readFileSync } from 'node:fs'
import { registerSecret } from './redact.js'

/**
 * Passwords and tokens need not be written into kafka-why.yaml: a secret field may name an
 * environment variable (`password: ${KAFKA_PASSWORD}`) or a file beside it may hold the value
 * (`password_file: /run/secrets/kafka`, the shape Kubernetes and Docker secrets mount). Every value
 * resolved here is registered for redaction, so it cannot reach a log or a channel.
 */

const WHOLE_REF = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/
const ANY_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/**
 * Reads `obj[key]` as a secret: literal, `${ENV}`, or from the file named by `obj[key_file]`.
 * Problems name the key path; undefined when the field is absent or cannot be resolved.
 */
export function resolveSecretField(obj: Record<string, unknown>, key: string, at: string, env: NodeJS.ProcessEnv, problems: string[]): string | undefined {
  const fileKey = `${key}_file`
  const path = obj[fileKey]
  if (path !== undefined) {
    if (obj[key] !== undefined) {
      problems.push(`${at}: give ${key} or ${fileKey}, not both`)
      return undefined
    }
    if (typeof path !== 'string' || path === '') {
      problems.push(`${at}.${fileKey}: expected a file path`)
      return undefined
    }
    return readSecretFile(path, `${at}.${fileKey}`, problems)
  }
  const v = obj[key]
  if (v === undefined) return undefined
  if (typeof v !== 'string') {
    problems.push(`${at}.${key}: expected a string, \${ENV_VARIABLE} or ${fileKey}: <path>`)
    return undefined
  }
  return interpolateEnv(v, `${at}.${key}`, env, problems, true)
}

/**
 * Replaces every `${NAME}` in a string by the variable's value (a scrape URL with a password from
 * the environment). A missing variable is a problem, never an empty string.
 */
export function interpolateEnv(text: string, at: string, env: NodeJS.ProcessEnv, problems: string[], secret = false): string | undefined {
  const whole = WHOLE_REF.exec(text)
  let missing = false
  const out = text.replace(ANY_REF, (_, name: string) => {
    const value = env[name]
    if (value === undefined || value === '') {
      problems.push(`${at}: environment variable ${name} is not set`)
      missing = true
      return ''
    }
    registerSecret(value)
    return value
  })
  if (missing) return undefined
  if (secret && !whole) registerSecret(out)
  return out
}

/** A secret from a file, without its trailing newline; problems say which key and why. */
export function readSecretFile(path: string, at: string, problems: string[]): string | undefined {
  try {
    const value = readFileSync(path, 'utf8').replace(/\r?\n$/, '')
    if (value === '') {
      problems.push(`${at}: '${path}' is empty`)
      return undefined
    }
    registerSecret(value)
    return value
  } catch (err) {
    problems.push(`${at}: cannot read '${path}': ${(err as NodeJS.ErrnoException).code ?? String(err)}`)
    return undefined
  }
}
