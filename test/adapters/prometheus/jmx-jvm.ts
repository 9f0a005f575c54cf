/**
 * Starts a small real JVM (fixtures/KafkaMBeans.java: MBeans under Kafka's ObjectNames) with the real
 * Prometheus JMX exporter agent attached, so scraper tests read what the exporter truly writes.
 * The agent jar comes from Maven Central through `mvn dependency:copy` into .cache/jmx/ on first use.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '../../..')
/** Real exporter captures, exporter configs and the MBean program. */
export const FIXTURES = path.join(here, 'fixtures')

/** The exporter versions the tests cover: the last 0.x line and the 1.x rewrite. */
export type ExporterVersion = '0.20.0' | '1.0.1'

/** Returns the agent jar path, fetching it with Maven when absent. */
export function agentJar(version: ExporterVersion): string {
  const dir = path.join(root, '.cache', 'jmx')
  const jar = path.join(dir, `jmx_prometheus_javaagent-${version}.jar`)
  if (!existsSync(jar)) {
    execFileSync(
      'mvn',
      ['-q', '-B', 'dependency:copy', `-Dartifact=io.prometheus.jmx:jmx_prometheus_javaagent:${version}`, `-DoutputDirectory=${dir}`],
      { stdio: 'inherit', timeout: 300_000 },
    )
  }
  return jar
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port
      srv.close(() => resolve(port))
    })
    srv.on('error', reject)
  })
}

/** A started JVM: its exporter URL, and stop() that closes its stdin and waits for it to exit. */
export type RunningJvm = { port: number; url: string; child: ChildProcess; stop(): Promise<void> }

/** Starts the MBean JVM with the agent on `port` under `config` (a file in fixtures/); resolves once it answers. */
export async function startJvm(version: ExporterVersion, config: string, port: number): Promise<RunningJvm> {
  const jar = agentJar(version)
  const child = spawn(
    'java',
    ['-Xmx64m', '-XX:TieredStopAtLevel=1', `-javaagent:${jar}=127.0.0.1:${port}:${path.join(FIXTURES, config)}`, path.join(FIXTURES, 'KafkaMBeans.java')],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  const url = `http://127.0.0.1:${port}/metrics`
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('JVM did not start within 60s')), 60_000)
    child.on('exit', (code) => reject(new Error(`JVM exited with ${code}`)))
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) {
        clearTimeout(timer)
        resolve()
      }
    })
  })
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.stdin!.end()
      setTimeout(() => child.kill('SIGKILL'), 5000).unref()
    })
  return { port, url, child, stop }
}
