/**
 * REDIS_CLUSTER_NODES: the seed nodes of a Redis Cluster, comma-separated, each `host:port` or a URL
 * `redis://[user:password@]host:port` (`rediss://` for TLS). Only a few seeds are needed: the client
 * learns the rest from the cluster. Credentials and TLS apply to every node, so the entries that
 * carry them must agree.
 */

/** What every command says when the environment names both a single Redis and a cluster. */
export const BOTH_STORES_SET = 'REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for one Redis or REDIS_CLUSTER_NODES for a Redis Cluster, not both'

/** Where the cluster is and how to log in, as the Cluster client takes it. */
export type ClusterTarget = {
  nodes: { host: string; port: number }[]
  username?: string
  password?: string
  tls: boolean
}

/** Parses REDIS_CLUSTER_NODES; a string is the reason it cannot be used. */
export function parseClusterNodes(text: string): ClusterTarget | string {
  const entries = text.split(',').map((e) => e.trim()).filter((e) => e !== '')
  if (entries.length === 0) return 'no nodes; expected host:port[,host:port…]'
  const nodes: ClusterTarget['nodes'] = []
  let login: { username?: string; password?: string; tls: boolean } | undefined
  for (const entry of entries) {
    const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : `redis://${entry}`
    let u: URL
    try {
      u = new URL(url)
    } catch {
      return `'${displayNode(entry)}' is not host:port`
    }
    if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') return `unsupported scheme '${u.protocol}' in '${displayNode(entry)}'; expected redis:// or rediss://`
    if (!u.hostname) return `'${displayNode(entry)}' has no host; expected host:port`
    if (!u.port) return `'${displayNode(entry)}' has no port; expected host:port`
    if (u.pathname && u.pathname !== '/') return `'${displayNode(entry)}': a cluster has no databases, drop '${u.pathname}'`
    const here = { username: u.username ? decodeURIComponent(u.username) : undefined, password: u.password ? decodeURIComponent(u.password) : undefined, tls: u.protocol === 'rediss:' }
    const carriesLogin = here.username !== undefined || here.password !== undefined || here.tls
    if (carriesLogin) {
      if (login && (login.username !== here.username || login.password !== here.password || login.tls !== here.tls)) {
        return 'the nodes give different credentials or TLS settings; one cluster has one login'
      }
      login = here
    }
    nodes.push({ host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(u.port) })
  }
  return { nodes, ...login, tls: login?.tls ?? false }
}

/** One entry as shown to people: the password is never printed. */
function displayNode(entry: string): string {
  return entry.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@')
}

/** REDIS_CLUSTER_NODES as shown to people (errors, logs): passwords replaced by ***. */
export function displayClusterNodes(text: string): string {
  return text.split(',').map((e) => displayNode(e.trim())).filter((e) => e !== '').join(',')
}
