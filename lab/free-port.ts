import { createServer } from 'node:net'

const handedOut = new Set<number>()

/**
 * A TCP port on 127.0.0.1 that nothing listens on now and that this process has not handed out
 * before, so several lab services started at once never collide with each other.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer()
      srv.once('error', reject)
      srv.listen(0, '127.0.0.1', () => {
        const address = srv.address()
        const p = typeof address === 'object' && address ? address.port : 0
        srv.close(() => resolve(p))
      })
    })
    if (port > 0 && !handedOut.has(port)) {
      handedOut.add(port)
      return port
    }
  }
  throw new Error('no free TCP port on 127.0.0.1')
}
