import { CLIENT_LIBRARIES, findClientTemplate, type ClientLibraryName } from './wording/client-lookup.js'
import { findTemplate } from './wording/lookup.js'

/**
 * A line pasted bare — no time, no level, no logger, only the message ("No readable meta.properties
 * files found", "Too many connections from /10.0.0.7 - max is 60") — is still a log line when its
 * wording is one a Kafka, ZooKeeper or client statement writes: the wording tables say so, and they
 * also say at which level and from which logger (or client library) it was written. Without this such
 * a file was "not a log" and its failure was never read.
 */

/** What the tables say about a bare message. */
export type TemplatedLine = { level: string; logger?: string; client?: ClientLibraryName }

/**
 * Literal characters a template needs before its match stands for a log line: short templates
 * ("{} failed", "Error: {}") match ordinary prose.
 */
const MIN_LITERAL_CHARS = 20

/** Messages longer than this are not looked up (a bare message is a sentence, not a dump). */
const MAX_MESSAGE_CHARS = 1024

/** A statement's wording starts within its first characters with a word; a run of punctuation or digits is no message. */
const WORD_NEAR_FRONT = /[A-Za-z]{3}/

function literalChars(template: string): number {
  let n = 0
  for (const part of template.split('\n')[0].split('{}')) n += part.replace(/\s+/g, ' ').trim().length
  return n
}

/**
 * The level, logger or client library of a bare message, from the statement the wording tables say
 * wrote it; undefined when no statement with enough literal text matches it.
 */
export function templatedLine(message: string): TemplatedLine | undefined {
  const msg = message.trim()
  if (msg.length < MIN_LITERAL_CHARS || msg.length > MAX_MESSAGE_CHARS || !WORD_NEAR_FRONT.test(msg.slice(0, 64))) return undefined
  const e = findTemplate(msg)
  if (e && literalChars(e.template) >= MIN_LITERAL_CHARS) return { level: e.level, logger: e.logger }
  for (const library of CLIENT_LIBRARIES) {
    const c = findClientTemplate(library, msg)
    // sarama logs everything at one level: its statements say what happened, not how bad it is.
    if (c && literalChars(c.template) >= MIN_LITERAL_CHARS) return { level: c.level === 'LOG' ? 'INFO' : c.level, logger: c.component, client: library }
  }
  return undefined
}
