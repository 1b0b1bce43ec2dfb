#!/usr/bin/env bash
# fence's whole test suite in one command, on a machine with Go and no
# Docker:
#
#   bash deploy/local/test.sh
#
# It vets, runs every test with the race detector, then runs every fuzz
# target briefly. Settings (environment):
#   FUZZTIME   how long each fuzz target runs (default 10s; 0 skips fuzzing)
#
# Servers that integration tests need (MinIO, dynalite) will be started in
# start_servers below as plain processes, each registered with on_exit so
# that it is stopped however the script ends; tests skip with a message
# when their servers are not configured.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

FUZZTIME="${FUZZTIME:-10s}"

# run prints a command, then runs it.
run() {
	printf '+ %s\n' "$*" >&2
	"$@"
}

# on_exit registers a command to run when the script exits, last first.
cleanup=()
on_exit() { cleanup=("$*" "${cleanup[@]}"); }
run_cleanup() {
	local c
	for c in "${cleanup[@]}"; do eval "$c" || true; done
}
trap run_cleanup EXIT

# workdir holds server data and logs for this run.
workdir="$(mktemp -d "${TMPDIR:-/tmp}/fence-test.XXXXXX")"
on_exit rm -rf "$workdir"

# start_servers starts the servers integration tests use and exports the
# variables that point the tests at them. None are needed yet: the memory
# and local-directory backends run in-process.
start_servers() {
	:
}

# fuzz_targets prints "<package dir> <FuzzName>" for every fuzz target.
fuzz_targets() {
	grep -rHoE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' . |
		sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($|\1 \2|' |
		sort -u
}

start_servers

run go vet ./...
run go test -race -count=1 ./...

if [[ "$FUZZTIME" != "0" && "$FUZZTIME" != "0s" ]]; then
	mapfile -t targets < <(fuzz_targets)
	for target in "${targets[@]}"; do
		read -r dir name <<<"$target"
		run go test -run='^$' -fuzz="^${name}\$" -fuzztime="$FUZZTIME" "$dir"
	done
fi

echo "deploy/local/test.sh: all tests passed" >&2
