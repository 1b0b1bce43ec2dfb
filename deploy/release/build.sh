#!/usr/bin/env bash
# Builds fence's release artifacts (docs/release.md) into a directory:
#
#   bash deploy/release/build.sh [OUT] [TARGETS]
#
# OUT defaults to dist/; TARGETS to every release platform
# (linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64). The
# archives, their SBOMs and SHA256SUMS are written for every target, and
# the container image for the linux ones. No network is needed beyond the
# Go module proxy for the builder's own modules (cached after the first
# run), and no container daemon. The version is deploy/release/VERSION:
# the release itself on a commit tagged with it, a snapshot otherwise.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$root/dist}"
targets="${2:-linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64}"
FENCE_CACHE=${FENCE_CACHE:-"$root/.cache"}
bin="$FENCE_CACHE/bin/fence-release"

# The CA certificates the image carries: Debian's ca-certificates.
certs=/etc/ssl/certs/ca-certificates.crt
if [[ ! -s "$certs" ]]; then
	if command -v apt-get >/dev/null && [[ "$(id -u)" == 0 ]]; then
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ca-certificates >/dev/null; } >&2
	fi
	[[ -s "$certs" ]] || { echo "deploy/release/build.sh: $certs is missing: install Debian's ca-certificates" >&2; exit 1; }
fi

mkdir -p "$FENCE_CACHE/bin"
(cd "$root/deploy/tools" && go build -o "$bin" ./release)
image=()
[[ "$targets" == *linux/* ]] && image=(-image)
"$bin" -repo "$root" -out "$out" -targets "$targets" -ca-certificates "$certs" "${image[@]}"
(cd "$out" && sha256sum -c --quiet SHA256SUMS)
