import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'

/**
 * The Socket Mode side of the Slack stand-in: a minimal RFC 6455 WebSocket endpoint (text frames,
 * ping/pong, close) on 127.0.0.1 that says hello, sends envelopes and records what the bot sends
 * back, so Socket Mode runs over a real socket without a Slack workspace.
 */
export class WsEndpoint {
  readonly received: Record<string, any>[] = []
  private server?: Server
  private sockets = new Set<Duplex>()
  private waiters: { pred: () => boolean; resolve: () => void }[] = []
  url = ''

  async start(): Promise<this> {
    this.server = createServer((_, res) => res.writeHead(426).end())
    this.server.on('upgrade', (req, socket) => {
      const key = String(req.headers['sec-websocket-key'] ?? '')
      const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')
      socket.write(['HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Accept: ${accept}`, '', ''].join('\r\n'))
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
      socket.on('error', () => this.sockets.delete(socket))
      let buf = Buffer.alloc(0)
      socket.on('data', (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk])
        for (;;) {
          const frame = readFrame(buf)
          if (!frame) break
          buf = buf.subarray(frame.size)
          if (frame.opcode === 0x1) {
            this.received.push(JSON.parse(frame.payload.toString('utf8')))
            this.wake()
          } else if (frame.opcode === 0x9) socket.write(writeFrame(0xa, frame.payload))
          else if (frame.opcode === 0x8) socket.end(writeFrame(0x8, Buffer.alloc(0)))
        }
      })
      this.send({ type: 'hello', num_connections: 1, debug_info: { host: 'stand-in' }, connection_info: { app_id: 'AAPP' } }, socket)
    })
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r))
    this.url = `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/link`
    return this
  }

  /** Sends a JSON message to one socket, or to every connected one. */
  send(message: unknown, socket?: Duplex): void {
    const frame = writeFrame(0x1, Buffer.from(JSON.stringify(message)))
    for (const s of socket ? [socket] : this.sockets) s.write(frame)
  }

  get connected(): number {
    return this.sockets.size
  }

  waitFor(pred: () => boolean, timeoutMs = 10_000): Promise<void> {
    if (pred()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const w = { pred, resolve }
      this.waiters.push(w)
      setTimeout(() => reject(new Error(`ws endpoint: condition not met in ${timeoutMs} ms; received ${JSON.stringify(this.received)}`)), timeoutMs).unref()
    })
  }

  wake(): void {
    for (const w of [...this.waiters]) if (w.pred()) {
      this.waiters = this.waiters.filter((x) => x !== w)
      w.resolve()
    }
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()))
  }
}

function readFrame(buf: Buffer): { opcode: number; payload: Buffer; size: number } | undefined {
  if (buf.length < 2) return undefined
  const opcode = buf[0] & 0x0f
  const masked = (buf[1] & 0x80) !== 0
  let len = buf[1] & 0x7f
  let off = 2
  if (len === 126) {
    if (buf.length < 4) return undefined
    len = buf.readUInt16BE(2)
    off = 4
  } else if (len === 127) {
    if (buf.length < 10) return undefined
    len = Number(buf.readBigUInt64BE(2))
    off = 10
  }
  const maskOff = off
  if (masked) off += 4
  if (buf.length < off + len) return undefined
  const payload = Buffer.from(buf.subarray(off, off + len))
  if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= buf[maskOff + (i % 4)]
  return { opcode, payload, size: off + len }
}

function writeFrame(opcode: number, payload: Buffer): Buffer {
  const head = payload.length < 126 ? Buffer.from([0x80 | opcode, payload.length]) : payload.length < 65536 ? Buffer.from([0x80 | opcode, 126, payload.length >> 8, payload.length & 0xff]) : (() => {
    const h = Buffer.alloc(10)
    h[0] = 0x80 | opcode
    h[1] = 127
    h.writeBigUInt64BE(BigInt(payload.length), 2)
    return h
  })()
  return Buffer.concat([head, payload])
}
