/**
 * Kafka that cannot be reached is the operator's problem to fix (a wrong address in kafka-why.yaml, a
 * firewall, a broker down, refused credentials), not an internal failure: the admin client's errors of
 * that kind become one sentence naming the endpoint and the cause, never a kafkajs stack trace.
 */

/** Raised when no admin connection to a cluster could be made or kept; `endpoint` and `cause` say where and why. */
export class KafkaUnreachableError extends Error {
  constructor(
    readonly endpoint: string,
    readonly reason: string,
  ) {
    super(`cannot reach Kafka at ${endpoint}: ${reason}`)
    this.name = 'KafkaUnreachableError'
  }
}

type ClientError = { name?: string; message?: string; code?: string | number; broker?: string; cause?: unknown; originalError?: unknown; hostname?: string; address?: string; port?: number }

// System errors a connection attempt ends in; TLS failures carry OpenSSL's code (CERT_HAS_EXPIRED, …).
const NETWORK_CODES = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|EPROTO|ERR_SSL_[A-Z_]+|[A-Z_]*CERT[A-Z_]*|UNABLE_TO_[A-Z_]+|SELF_SIGNED_[A-Z_]+)$/

/** The error and everything it wraps (kafkajs keeps the first failure in `cause` or `originalError`). */
function chain(err: unknown): ClientError[] {
  const out: ClientError[] = []
  let e = err as ClientError | undefined
  while (e && typeof e === 'object' && out.length < 8 && !out.includes(e)) {
    out.push(e)
    e = (e.cause ?? e.originalError) as ClientError | undefined
  }
  return out
}

/**
 * The KafkaUnreachableError an admin client error means, or undefined when Kafka answered (an unknown
 * topic, a refused config) or the failure is something else. `brokers` are the configured bootstrap
 * brokers, named when the error does not say which one it tried.
 */
export function unreachableError(err: unknown, brokers: readonly string[]): KafkaUnreachableError | undefined {
  if (err instanceof KafkaUnreachableError) return err
  const errors = chain(err)
  const endpoint = errors.find((e) => typeof e.broker === 'string' && e.broker)?.broker ?? brokers.join(', ')
  for (const e of errors) {
    const code = typeof e.code === 'string' ? e.code : undefined
    if (e.name === 'KafkaJSSASLAuthenticationError') return new KafkaUnreachableError(endpoint, `the broker refused the SASL login (${firstLine(e.message)})`)
    if (code && NETWORK_CODES.test(code)) return new KafkaUnreachableError(endpoint, code)
  }
  for (const e of errors) {
    if (e.name === 'KafkaJSConnectionError' || e.name === 'KafkaJSConnectionClosedError') {
      const m = firstLine(e.message).replace(/^Connection error: /, '')
      return new KafkaUnreachableError(endpoint, /timeout/i.test(m) ? 'connection timed out' : m)
    }
    if (e.name === 'KafkaJSRequestTimeoutError') return new KafkaUnreachableError(endpoint, 'the broker did not answer in time')
    if (e.name === 'KafkaJSBrokerNotFound' || e.name === 'KafkaJSLockTimeout') return new KafkaUnreachableError(endpoint, firstLine(e.message))
  }
  return undefined
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n')[0].slice(0, 200)
}
