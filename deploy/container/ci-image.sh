#!/usr/bin/env bash
# CI step: builds the image from deploy/container/Dockerfile and runs deploy/container/smoke-test.sh,
# with podman. Where the default base (docker.io/library/node:20-bookworm-slim) cannot be pulled, the
# base is built from Debian packages and npm by build-base.sh; where podman's default runtime cannot
# start containers (crun and a hybrid cgroup hierarchy), runc with cgroupfs and explicit ulimits is
# used; behind a TLS-intercepting proxy, the CA bundle named by NODE_EXTRA_CA_CERTS or SSL_CERT_FILE is
# given to npm in the build. Each fallback is said on stderr.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=docker.io/library/node:20-bookworm-slim
if ! podman pull -q "$base" >/dev/null 2>&1; then
  echo "ci-image: cannot pull $base (no container registry reachable); building the base from Debian packages and npm" >&2
  base=localhost/kafka-why-base:node20-bookworm
  podman image exists "$base" || deploy/container/build-base.sh "$base"
fi
podman_cmd=(podman)
limits=()
if ! podman run --rm "$base" true >/dev/null 2>&1; then
  echo "ci-image: podman's default runtime cannot start a container here; using runc, cgroupfs and explicit ulimits" >&2
  podman_cmd=(podman --runtime runc --cgroup-manager cgroupfs)
  limits=(--ulimit nofile=4096:4096 --ulimit nproc=4096:4096)
fi
ca=()
for f in "${NODE_EXTRA_CA_CERTS:-}" "${SSL_CERT_FILE:-}"; do
  if [ -n "$f" ] && [ -f "$f" ]; then ca=(-v "$f:/run/host-ca.crt:ro" --build-arg npm_config_cafile=/run/host-ca.crt); break; fi
done
# --format docker keeps the HEALTHCHECK (the OCI image format has no field for it).
"${podman_cmd[@]}" build --format docker --network host "${limits[@]}" "${ca[@]}" --build-arg "BASE=$base" \
  -f deploy/container/Dockerfile -t localhost/kafka-why:dev .
PODMAN="${podman_cmd[*]}" PODMAN_RUN_OPTS="${limits[*]}" deploy/container/smoke-test.sh localhost/kafka-why:dev
