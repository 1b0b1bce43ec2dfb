#!/usr/bin/env bash
# fence's whole test suite in one command, on a machine with Go and no
# Docker:
#
#   bash deploy/local/test.sh
#
# It vets, runs every test with the race detector (including the quick
# mode of the fault suite in integration/faults, about 5 to 7 minutes), then
# runs every fuzz target briefly. Settings (environment):
#   FUZZTIME      how long each fuzz target runs: a count of executions
#                 (default 200000x) or a duration (60s); 0 skips fuzzing
#   FENCE_FAULTS  0 skips the fault suite's runs (docs/faults.md)
#
# It also installs and starts the real servers the integration tests run
# against, MinIO and dynalite, and DynamoDB Local when Java 17 is there or
# apt-get can install it, as plain processes on free ports (see
# deploy/local/servers.sh), and stops them however the script ends. The
# first run on a new machine builds MinIO from the Go module proxy: about 6
# to 7 minutes on 2 cores.
#
# It also starts versitygw (POSIX backend), a second S3 implementation
# that the tests of objstore/s3store and objstore/miniostore run against
# beside MinIO (FENCE_TEST_S3_ENDPOINT_VERSITYGW); its first build takes
# about 5 minutes on 2 cores.
#
# And Azurite (npm, blob service only), which the tests of
# objstore/azblobstore and config's azblob tests run against
# (FENCE_TEST_AZURE_ENDPOINT); its first install takes about 2 minutes.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

FUZZTIME="${FUZZTIME:-200000x}"

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

# fuzz runs one fuzz target. A count of executions is the default because
# Go 1.26's fuzzing coordinator can fail a target at the end of a
# duration with a bare "context deadline exceeded" and no failing input
# (go.dev/issue/75804, fixed in Go 1.27); a count has no deadline. With a
# duration, that one failure is reported as a warning only when fuzzing
# wrote no new failing input; any other failure fails the script.
fuzz() {
	local dir="$1" name="$2" out corpus="$1/testdata/fuzz/$2" before after
	before="$(ls "$corpus" 2>/dev/null | sort || true)"
	out="$workdir/fuzz-$name.log"
	printf '+ %s\n' "CGO_ENABLED=0 go test -trimpath -run='^\$' -fuzz='^${name}\$' -fuzztime=$FUZZTIME $dir" >&2
	if CGO_ENABLED=0 go test -trimpath -run='^$' -fuzz="^${name}\$" -fuzztime="$FUZZTIME" "$dir" 2>&1 | tee "$out"; then
		return 0
	fi
	after="$(ls "$corpus" 2>/dev/null | sort || true)"
	if [[ "$FUZZTIME" != *x && "$before" == "$after" ]] &&
		grep -q -- "--- FAIL: $name" "$out" &&
		[[ "$(grep -A1 -- "--- FAIL: $name" "$out" | tail -n1 | tr -d '[:space:]')" == "contextdeadlineexceeded" ]]; then
		echo "warning: $name: Go's fuzzing coordinator stopped with \"context deadline exceeded\" and wrote no failing input (go.dev/issue/75804); not a failure of $name" >&2
		return 0
	fi
	return 1
}

# fuzz_targets prints "<package dir> <FuzzName>" for every fuzz target.
fuzz_targets() {
	grep -rHoE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' . |
		sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($|\1 \2|' |
		sort -u
}

# deploy_checks validates the deployment files under deploy/: kubeconform
# on the Kubernetes manifests, cfn-guard on the CloudFormation template,
# and the registry schemas that deploy/deploy_test.go's TestTemplateSchema
# checks the template against (deploy/tools/check.sh, docs/deploy.md). The
# tools are installed once into $FENCE_CACHE/deploy. FENCE_DEPLOY_CHECKS=0
# skips it, and TestTemplateSchema then skips too.
deploy_checks() {
	if [[ "${FENCE_DEPLOY_CHECKS:-}" == 0 ]]; then
		echo "FENCE_DEPLOY_CHECKS=0: the deployment files are not validated" >&2
		return
	fi
	run bash deploy/tools/check.sh
}

# release_checks builds the release archive for linux/amd64 and the
# container image (deploy/release/build.sh, docs/release.md) for
# deploy/release_test.go, and type-checks fence for windows, which must
# build though it is not tested. FENCE_RELEASE_ALL=1 builds every release
# platform; FENCE_RELEASE=0 skips it all, and the release tests skip.
release_checks() {
	if [[ "${FENCE_RELEASE:-}" == 0 ]]; then
		echo "FENCE_RELEASE=0: no release archive or image is built or tested" >&2
		return
	fi
	local targets=linux/amd64
	[[ "${FENCE_RELEASE_ALL:-}" == 1 ]] && targets=linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64
	run bash deploy/release/build.sh "$FENCE_TEST_RELEASE_DIR" "$targets"
	if [[ "$targets" != *windows* ]]; then
		# fence must build for windows, which no test runs on: type-check
		# it and every dependency from source for windows/amd64
		# (deploy/tools/typecheck), in seconds instead of the minutes a
		# compile of every dependency for windows takes.
		(cd deploy/tools && run go run ./typecheck -goos windows -goarch amd64 -C ../.. ./cmd/fence)
	fi
}

# The preparation runs as parallel jobs, each with its own log, printed
# when it ends: the servers' installs, the deployment checks, the release
# build, the Debian packages, go vet (whose compiled packages the fuzz
# targets reuse) and the race build of every package (go vet -race, whose
# compiled packages go test -race reuses: it links and runs). On a new
# machine they wait on the module proxy, npm and apt as much as on the
# CPU; one after another they took 34 of the 56 minutes of a run from
# empty caches, and most of that time one core was idle.
job_names=()
job_pids=()
start_job() {
	local name=$1
	shift
	printf '+ [%s] %s\n' "$name" "$*" >&2
	(
		set -euo pipefail
		trap 'echo "$SECONDS" >"$workdir/job-$name.end"' EXIT
		"$@"
	) >"$workdir/job-$name.log" 2>&1 &
	job_pids+=("$!")
	job_names+=("$name")
	on_exit "kill ${job_pids[-1]} 2>/dev/null"
}
# wait_jobs waits for every job, prints its log and when it ended, and
# fails when any failed.
wait_jobs() {
	local i failed=()
	for i in "${!job_pids[@]}"; do
		if wait "${job_pids[$i]}"; then
			printf -- '--- [%s] ok (ended %ss into the run)\n' "${job_names[$i]}" "$(cat "$workdir/job-${job_names[$i]}.end")" >&2
		else
			printf -- '--- [%s] FAILED (%ss into the run)\n' "${job_names[$i]}" "$(cat "$workdir/job-${job_names[$i]}.end" 2>/dev/null)" >&2
			failed+=("${job_names[$i]}")
		fi
		sed "s/^/[${job_names[$i]}] /" "$workdir/job-${job_names[$i]}.log" >&2
	done
	if ((${#failed[@]})); then
		echo "deploy/local/test.sh: failed: ${failed[*]}" >&2
		return 1
	fi
}

# install_packages installs the Debian packages the tests use: spin for
# the model checks in model/ (required), chromium for serve's browser
# test (that test skips without it, saying so), and the S3 clients of
# s3gw/clients (s3_client_packages).
install_packages() {
	local want=()
	command -v spin >/dev/null || want+=(spin)
	[[ -z "${FENCE_TEST_CHROMIUM:-}" ]] && ! command -v chromium >/dev/null && want+=(chromium)
	mapfile -t -O "${#want[@]}" want < <(s3_client_packages)
	((${#want[@]})) || return 0
	if ! { run apt-get update -qq && DEBIAN_FRONTEND=noninteractive run apt-get install -y -qq "${want[@]}" >/dev/null; }; then
		echo "deploy/local/test.sh: apt-get could not install ${want[*]}" >&2
	fi
	if ! command -v spin >/dev/null; then
		echo "deploy/local/test.sh: spin is not installed and apt-get could not install it; install spin (Debian: apt-get install -y spin) for the model checks in model/" >&2
		return 1
	fi
}

# ---- S3 clients (s3gw/clients) ----------------------------------------
# Real S3 clients that s3gw/clients drives through one scenario each,
# against MinIO directly and through the S3 gateway: Debian's aws cli,
# s3cmd, rclone and boto3, called by absolute path (PATH may hold other
# Pythons' aws and python3), and AWS's JavaScript SDK v3 from npm
# (fence_install_awsjs in deploy/local/servers.sh, into $FENCE_CACHE/awsjs).
# From nothing, apt-get update and the install of the four packages took
# 17 s here, the npm install 4 s.

# s3_client_packages prints, one a line, the Debian packages of the S3
# clients that are not installed yet.
s3_client_packages() {
	[[ -x /usr/bin/aws ]] || echo awscli
	[[ -x /usr/bin/s3cmd ]] || echo s3cmd
	[[ -x /usr/bin/rclone ]] || echo rclone
	/usr/bin/python3 -c 'import boto3' 2>/dev/null || echo python3-boto3
}

# s3_clients_env exports the FENCE_TEST_* variables that name the S3
# clients that are installed, and FENCE_TEST_S3_CLIENTS=1: the tests of
# s3gw/clients then fail, instead of skipping, when a client is missing.
s3_clients_env() {
	export FENCE_TEST_S3_CLIENTS=1
	[[ -x /usr/bin/aws ]] && export FENCE_TEST_AWSCLI=/usr/bin/aws
	[[ -x /usr/bin/s3cmd ]] && export FENCE_TEST_S3CMD=/usr/bin/s3cmd
	[[ -x /usr/bin/rclone ]] && export FENCE_TEST_RCLONE=/usr/bin/rclone
	/usr/bin/python3 -c 'import boto3' 2>/dev/null && export FENCE_TEST_BOTO3_PYTHON=/usr/bin/python3
	local awsjs="${FENCE_CACHE:-$PWD/.cache}/awsjs"
	[[ -d "$awsjs/node_modules/@aws-sdk/client-s3" ]] && export FENCE_TEST_AWSJS="$awsjs"
	return 0
}
# ---- end S3 clients ------------------------------------------------------

export FENCE_TEST_CFN_SCHEMAS="${FENCE_CACHE:-$PWD/.cache}/deploy/cfn-schemas"
export FENCE_TEST_RELEASE_DIR="$workdir/dist"
SECONDS=0
if [[ "${FENCE_NO_SERVERS:-}" != 1 ]]; then
	# shellcheck source=deploy/local/servers.sh
	source deploy/local/servers.sh
	start_job servers fence_servers_install
fi
start_job deploy deploy_checks
start_job release release_checks
start_job packages install_packages
# vet and the fuzz targets build as the release does (CGO_ENABLED=0,
# -trimpath), so the three share one compile of every package.
start_job vet env CGO_ENABLED=0 go vet -trimpath ./...
start_job race-build go vet -race ./...
wait_jobs
start_servers
s3_clients_env

# DynamoDB Local: servers.sh skips it without Java 17; say so again at the
# end, where it is seen, since the DynamoDB tests then ran against dynalite
# only.
dynamodb_local_note() {
	if [[ "${FENCE_NO_SERVERS:-}" != 1 && -z "${FENCE_TEST_DYNAMODB_LOCAL_ENDPOINT:-}" ]]; then
		echo "deploy/local/test.sh: note: DynamoDB Local did not run (no Java 17 or later); the DynamoDB tests ran against dynalite only, those for DynamoDB Local skipped (FENCE_TEST_DYNAMODB_LOCAL_ENDPOINT is not set)" >&2
	fi
}

# spin model-checks the commit protocol (model/, docs/model.md): with
# FENCE_TEST_SPIN=1 the model's test fails, instead of skipping, when spin
# is missing. chromium drives serve's browser test (serve/browser_test.go)
# through the DevTools protocol; without it that test skips, saying so.
# FENCE_TEST_CHROMIUM names another Chrome or Chromium binary.
export FENCE_TEST_SPIN=1
if [[ -z "${FENCE_TEST_CHROMIUM:-}" ]] && command -v chromium >/dev/null; then
	FENCE_TEST_CHROMIUM="$(command -v chromium)"
	export FENCE_TEST_CHROMIUM
fi

# The servers' suites of objstore/s3store and objstore/miniostore run once
# per S3 implementation (MinIO, versitygw): with the race detector on a
# busy 2-core machine each package took up to about 9 minutes, near go
# test's default limit of 10 per package.
run go test -race -count=1 -timeout 30m ./...

if [[ "$FUZZTIME" != "0" && "$FUZZTIME" != "0s" ]]; then
	mapfile -t targets < <(fuzz_targets)
	for target in "${targets[@]}"; do
		read -r dir name <<<"$target"
		fuzz "$dir" "$name"
	done
fi

dynamodb_local_note
echo "deploy/local/test.sh: all tests passed" >&2
