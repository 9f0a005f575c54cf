import { readFileSync } from 'node:fs'
import path from 'node:path'
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { Service } from 'kubernetes-models/v1/Service'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget'
import { describe, expect, it } from 'vitest'
import YAML from 'yaml'
import { parseLiveConfig } from '../../adapters/live/live-config.js'
import { parseBotConfig } from '../../bot/config.js'
import { renderChart, renderTemplate } from './support/render-chart.js'

// deploy/helm/kafka-why rendered (test/deploy/support/render-chart.ts, the chart's template subset)
// and every manifest validated against the Kubernetes API's JSON schemas (kubernetes-models, generated
// from Kubernetes' OpenAPI definitions); the kafka-why.yaml it mounts must load as serve reads it.
const CHART = path.resolve(import.meta.dirname, '../../deploy/helm/kafka-why')
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  ConfigMap: ConfigMap as never,
  Service: Service as never,
  Deployment: Deployment as never,
  PodDisruptionBudget: PodDisruptionBudget as never,
}

describe('deploy/helm/kafka-why', () => {
  const withLogs = {
    extraVolumes: [{ name: 'broker-logs', persistentVolumeClaim: { claimName: 'kafka-broker-logs', readOnly: true } }],
    extraVolumeMounts: [{ name: 'broker-logs', mountPath: '/var/log/kafka', readOnly: true }],
  }

  it.each([
    ['the default values', {}],
    ['a shared log volume mounted', withLogs],
  ])('renders manifests the Kubernetes schemas accept, with %s', (_, values) => {
    const rendered = renderChart(CHART, { release: 'kw', namespace: 'kafka', values })
    expect(rendered.map((r) => r.manifest.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'Service', 'Service'])
    for (const { template, manifest } of rendered) {
      const Model = MODELS[manifest.kind as string]
      expect(() => new Model(manifest as never).validate(), template).not.toThrow()
    }
    // The schemas do refuse a malformed object: the check above can fail.
    const deploy = rendered.find((r) => r.manifest.kind === 'Deployment')!.manifest as Record<string, any>
    expect(() => new Deployment({ ...deploy, spec: { ...deploy.spec, replicas: 'two' } } as never).validate()).toThrow()
  })

  it('runs replicas as non-root with /healthz probes, mounts the config and the Secret, and serves Slack on its own Service', () => {
    const byKind = (k: string) => renderChart(CHART, { release: 'kw', values: withLogs }).filter((r) => r.manifest.kind === k).map((r) => r.manifest as Record<string, any>)
    const [deploy] = byKind('Deployment')
    expect(deploy.spec.replicas).toBe(2)
    const pod = deploy.spec.template.spec
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 })
    const c = pod.containers[0]
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' })
    expect(c.readinessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' })
    expect(c.env).toContainEqual({ name: 'SLACK_BOT_TOKEN_FILE', value: '/run/secrets/kafka-why/slack-bot-token' })
    expect(c.env).toContainEqual({ name: 'REDIS_URL', valueFrom: { secretKeyRef: { name: 'kafka-why', key: 'redis-url' } } })
    expect(c.volumeMounts).toContainEqual({ name: 'broker-logs', mountPath: '/var/log/kafka', readOnly: true })
    expect(c.volumeMounts).toContainEqual({ name: 'config', mountPath: '/etc/kafka-why', readOnly: true })
    const services = byKind('Service')
    expect(services.map((s) => [s.metadata.name, s.spec.ports[0].targetPort])).toEqual([['kw-metrics', 'metrics'], ['kw', 'slack']])
    expect(byKind('PodDisruptionBudget')[0].spec).toMatchObject({ minAvailable: 1, selector: { matchLabels: { 'app.kubernetes.io/instance': 'kw' } } })
  })

  it("mounts a kafka-why.yaml that the bot and serve load as written", () => {
    const [cm] = renderChart(CHART).filter((r) => r.manifest.kind === 'ConfigMap')
    const text = (cm.manifest.data as Record<string, string>)['kafka-why.yaml']
    expect(parseBotConfig(text, 'kafka-why.yaml').listen).toMatchObject({ host: '0.0.0.0', port: 3000 })
    expect(parseLiveConfig(text, 'kafka-why.yaml').listen).toMatchObject({ host: '0.0.0.0', port: 9464 })
  })

  it('refuses template syntax outside the checked subset', () => {
    const scope = { Release: { Name: 'r', Namespace: 'n' }, Chart: {}, Values: { a: [1] } }
    expect(() => renderTemplate('{{ include "x" . }}', scope)).toThrow("unsupported template value 'include \"x\" .'")
    expect(() => renderTemplate('{{ .Values.a | upper }}', scope)).toThrow("unsupported template function 'upper'")
    expect(renderTemplate('x:\n  {{- toYaml .Values.a | nindent 2 }}\n', scope)).toBe('x:\n  - 1\n')
  })

  it('ships a compose file whose kafka-why.yaml loads and whose services are the two it names', () => {
    const compose = YAML.parse(readFileSync(path.resolve(CHART, '../../compose/compose.yaml'), 'utf8'))
    expect(Object.keys(compose.services)).toEqual(['redis', 'kafka-why'])
    expect(compose.services['kafka-why'].environment.REDIS_URL).toBe('redis://redis:6379')
    const text = readFileSync(path.resolve(CHART, '../../compose/kafka-why.compose.yaml'), 'utf8')
    expect(parseBotConfig(text, 'kafka-why.yaml').auditChannel).toBe('C0456EFGH')
    expect(parseLiveConfig(text, 'kafka-why.yaml').clusters[0].logs[0].path).toBe('/var/log/kafka/server.log')
  })
})
