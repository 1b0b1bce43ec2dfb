#!/usr/bin/env bash
# fence's whole test suite in one command, on a machine with Go and no
# Docker:
#
#   bash deploy/local/test.sh
#
# It vets, runs every test with the race detector (including the quick
# mode of the fault suite in integration/faults, about 2 minutes), then
# runs every fuzz target briefly. Settings (environment):
#   FUZZTIME      how long each fuzz target runs (default 10s; 0 skips fuzzing)
#   FENCE_FAULTS  0 skips the fault suite's runs (docs/faults.md)
#
# It also installs and starts the real servers the integration tests run
# against, MinIO and dynalite, as plain processes on loopback ports (see
# deploy/local/servers.sh), and stops them however the script ends. The
# first run on a new machine builds MinIO from the Go module proxy: about 6
# to 7 minutes on 2 cores.
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

# start_servers installs (once, cached in .cache/) and starts MinIO and
# dynalite on free loopback ports, exports the FENCE_TEST_* variables that
# point the integration tests at them, and stops them when the script
# exits. FENCE_NO_SERVERS=1 skips them; the tests that need them then skip
# with a message saying which variable is unset.
start_servers() {
	if [[ "${FENCE_NO_SERVERS:-}" == 1 ]]; then
		echo "FENCE_NO_SERVERS=1: tests against MinIO and dynalite will skip" >&2
		return
	fi
	# shellcheck source=deploy/local/servers.sh
	source deploy/local/servers.sh
	on_exit fence_servers_stop
	FENCE_SERVERS_NO_TRAP=1 fence_servers_start
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
