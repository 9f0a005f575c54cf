#!/usr/bin/env bash
# Smoke test of the image deploy/container/Dockerfile builds: as its non-root user it diagnoses the
# demo incident it ships, and `serve` (configuration from a mounted file, a missing log file
# configured on purpose) answers its HEALTHCHECK, /healthz saying "degraded" for that log file.
#
#   deploy/container/smoke-test.sh [image]      (default localhost/kafka-why:dev)
#
# PODMAN may add options where the host needs them (this project's build machine: runc, cgroupfs and
# explicit ulimits, because crun cannot set up its cgroups there): PODMAN="podman --runtime runc …".
set -euo pipefail
image=${1:-localhost/kafka-why:dev}
podman_cmd=${PODMAN:-podman}
run_opts=${PODMAN_RUN_OPTS:-}
work=$(mktemp -d)
name=kafka-why-smoke-$$
cleanup() { $podman_cmd rm -f "$name" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

[ "$($podman_cmd run --rm $run_opts --entrypoint id "$image" -u)" = 10001 ] || { echo "smoke: the image does not run as uid 10001" >&2; exit 1; }
$podman_cmd run --rm $run_opts "$image" why 1 --replay /opt/kafka-why/test/incidents/seed-000-stw-session-expiry --json >"$work/why.json"
grep -q '"ruleId": "stw_pause_session_expiry"' "$work/why.json" || { echo "smoke: why on the demo incident did not name stw_pause_session_expiry" >&2; exit 1; }
echo "smoke: why on the shipped demo incident: stw_pause_session_expiry first"

cat >"$work/kafka-why.yaml" <<'YAML'
live:
  listen: 0.0.0.0:9464
  clusters:
    smoke:
      logs:
        - { broker: "1", path: /var/log/kafka/server.log }
YAML
chmod 0644 "$work/kafka-why.yaml"
$podman_cmd run -d --name "$name" $run_opts -v "$work/kafka-why.yaml:/etc/kafka-why/kafka-why.yaml:ro" "$image" serve --no-bot >/dev/null
for _ in $(seq 1 60); do
  if $podman_cmd healthcheck run "$name" >/dev/null 2>&1; then healthy=1; break; fi
  sleep 2
done
[ "${healthy:-0}" = 1 ] || { $podman_cmd logs "$name" >&2; echo "smoke: HEALTHCHECK never passed" >&2; exit 1; }
health=$($podman_cmd exec "$name" node -e "fetch('http://127.0.0.1:9464/healthz').then((r) => r.text()).then((t) => process.stdout.write(t))")
echo "$health" | grep -q '"status": "degraded"' || { echo "smoke: /healthz is not degraded for the missing log file: $health" >&2; exit 1; }
echo "$health" | grep -q '"problem": "no such file (ENOENT)"' || { echo "smoke: /healthz does not name the missing log file: $health" >&2; exit 1; }
logs=$($podman_cmd logs "$name" 2>&1)
grep -q 'log file /var/log/kafka/server.log (cluster smoke, broker 1): no such file (ENOENT)' <<<"$logs" \
  || { echo "smoke: serve did not log the missing log file" >&2; exit 1; }
echo "smoke: serve answers its HEALTHCHECK; /healthz degraded for the missing log file, and logged it"
