# shellcheck shell=bash
# Installs (once, cached) and starts the real servers the integration tests
# run against: MinIO, built from the Go module proxy at a pinned version,
# and dynalite, a DynamoDB implementation from the npm registry. Both listen
# on free loopback ports with temporary data directories, and are stopped
# when the calling shell exits, even on failure.
#
# Beside MinIO, versitygw (built from the Go module proxy at a pinned
# version, with its POSIX backend) is a second S3 implementation for the
# tests of s3store and miniostore: FENCE_TEST_S3_ENDPOINT_VERSITYGW.
#
# Source it, then call fence_servers_start (which stops the servers on EXIT
# unless FENCE_SERVERS_NO_TRAP is set, for callers with a trap of their own
# that call fence_servers_stop):
#
#   source deploy/local/servers.sh
#   fence_servers_start        # exports FENCE_TEST_S3_ENDPOINT, FENCE_TEST_DYNAMODB_ENDPOINT, ...
#
# The cache lives in .cache/ at the repository root (git-ignored), or in
# $FENCE_CACHE. The first MinIO build takes about 6 to 7 minutes on 2 cores,
# the first versitygw build about 5.

FENCE_MINIO_MODULE="github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c"
FENCE_VERSITYGW_MODULE="github.com/versity/versitygw/cmd/versitygw@v1.8.0"
FENCE_DYNALITE_PACKAGE="dynalite@4.0.0"

fence_repo_root() { (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd); }

fence_log() { printf '[servers] %s\n' "$*" >&2; }

# fence_free_port prints a TCP port on 127.0.0.1 that nothing listens on.
fence_free_port() {
	local port
	for _ in $(seq 1 200); do
		port=$((20000 + RANDOM % 30000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	fence_log "no free port found"
	return 1
}

# fence_wait_port waits until something accepts connections on the port,
# or the process given as $2 exits, for at most $3 seconds.
fence_wait_port() {
	local port=$1 pid=$2 limit=${3:-60} i
	for i in $(seq 1 $((limit * 10))); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			return 0
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			fence_log "process $pid exited before listening on port $port"
			return 1
		fi
		sleep 0.1
	done
	fence_log "nothing listened on port $port after ${limit}s"
	return 1
}

fence_install_minio() {
	local bin="$FENCE_CACHE/bin/minio" stamp="$FENCE_CACHE/bin/minio.version"
	if [[ -x "$bin" && "$(cat "$stamp" 2>/dev/null)" == "$FENCE_MINIO_MODULE" ]]; then
		return 0
	fi
	fence_log "building MinIO ($FENCE_MINIO_MODULE); the first build takes about 6 to 7 minutes on 2 cores"
	mkdir -p "$FENCE_CACHE/bin"
	GOBIN="$FENCE_CACHE/bin" GOFLAGS=-mod=mod go install "$FENCE_MINIO_MODULE"
	echo "$FENCE_MINIO_MODULE" >"$stamp"
}

fence_install_dynalite() {
	local dir="$FENCE_CACHE/dynalite" stamp="$FENCE_CACHE/dynalite/version"
	if [[ -x "$dir/node_modules/.bin/dynalite" && "$(cat "$stamp" 2>/dev/null)" == "$FENCE_DYNALITE_PACKAGE" ]]; then
		return 0
	fi
	command -v node >/dev/null && command -v npm >/dev/null || {
		fence_log "dynalite needs Node.js and npm: apt-get install -y nodejs npm"
		return 1
	}
	fence_log "installing $FENCE_DYNALITE_PACKAGE from the npm registry"
	mkdir -p "$dir"
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$FENCE_DYNALITE_PACKAGE" >&2
	echo "$FENCE_DYNALITE_PACKAGE" >"$stamp"
}

# versitygw: a second S3 implementation, with its POSIX backend (one
# directory per bucket, one file per object). Kept in functions of its own.

fence_install_versitygw() {
	local bin="$FENCE_CACHE/bin/versitygw" stamp="$FENCE_CACHE/bin/versitygw.version"
	if [[ -x "$bin" && "$(cat "$stamp" 2>/dev/null)" == "$FENCE_VERSITYGW_MODULE" ]]; then
		return 0
	fi
	fence_log "building versitygw ($FENCE_VERSITYGW_MODULE); the first build takes about 5 minutes on 2 cores"
	mkdir -p "$FENCE_CACHE/bin"
	GOBIN="$FENCE_CACHE/bin" GOFLAGS=-mod=mod go install "$FENCE_VERSITYGW_MODULE"
	echo "$FENCE_VERSITYGW_MODULE" >"$stamp"
}

# fence_versitygw_start starts versitygw on a free loopback port over a
# temporary directory, with MinIO's credentials (fence_servers_start sets
# them), and exports FENCE_TEST_S3_ENDPOINT_VERSITYGW.
fence_versitygw_start() {
	local port
	port=$(fence_free_port)
	mkdir -p "$FENCE_SERVERS_TMP/versitygw"
	ROOT_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID ROOT_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY \
		"$FENCE_CACHE/bin/versitygw" --port "127.0.0.1:$port" --region "$AWS_REGION" --quiet \
		posix "$FENCE_SERVERS_TMP/versitygw" >"$FENCE_SERVERS_TMP/versitygw.log" 2>&1 &
	FENCE_VERSITYGW_PID=$!
	fence_wait_port "$port" "$FENCE_VERSITYGW_PID" 60 || { cat "$FENCE_SERVERS_TMP/versitygw.log" >&2; return 1; }
	export FENCE_TEST_S3_ENDPOINT_VERSITYGW="http://127.0.0.1:$port"
	export FENCE_TEST_VERSITYGW_BIN="$FENCE_CACHE/bin/versitygw"
	fence_log "versitygw (POSIX backend) at $FENCE_TEST_S3_ENDPOINT_VERSITYGW (pid $FENCE_VERSITYGW_PID)"
}

fence_versitygw_stop() {
	if [[ -n "${FENCE_VERSITYGW_PID:-}" ]]; then
		kill "$FENCE_VERSITYGW_PID" 2>/dev/null || true
		wait "$FENCE_VERSITYGW_PID" 2>/dev/null || true
	fi
	FENCE_VERSITYGW_PID=
}

# fence_servers_stop stops both servers and removes their data. It is
# installed as an EXIT trap by fence_servers_start.
fence_servers_stop() {
	local pid
	for pid in ${FENCE_MINIO_PID:-} ${FENCE_DYNALITE_PID:-}; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in ${FENCE_MINIO_PID:-} ${FENCE_DYNALITE_PID:-}; do
		wait "$pid" 2>/dev/null || true
	done
	fence_versitygw_stop
	[[ -n "${FENCE_SERVERS_TMP:-}" ]] && rm -rf "$FENCE_SERVERS_TMP"
	FENCE_MINIO_PID= FENCE_DYNALITE_PID=
}

fence_servers_start() {
	FENCE_CACHE=${FENCE_CACHE:-"$(fence_repo_root)/.cache"}
	export FENCE_CACHE
	fence_install_minio
	fence_install_dynalite
	fence_install_versitygw
	FENCE_SERVERS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/fence-servers.XXXXXX")
	if [[ -z "${FENCE_SERVERS_NO_TRAP:-}" ]]; then
		trap fence_servers_stop EXIT
	fi
	trap 'exit 130' INT TERM

	export AWS_ACCESS_KEY_ID=fence-test-admin
	export AWS_SECRET_ACCESS_KEY=fence-test-secret-key
	export AWS_REGION=us-east-1
	export MINIO_ROOT_USER=$AWS_ACCESS_KEY_ID MINIO_ROOT_PASSWORD=$AWS_SECRET_ACCESS_KEY

	local s3port consoleport dynport
	s3port=$(fence_free_port)
	consoleport=$(fence_free_port)
	dynport=$(fence_free_port)

	mkdir -p "$FENCE_SERVERS_TMP/minio" "$FENCE_SERVERS_TMP/dynalite"
	MINIO_BROWSER=off "$FENCE_CACHE/bin/minio" server --quiet \
		--address "127.0.0.1:$s3port" --console-address "127.0.0.1:$consoleport" \
		"$FENCE_SERVERS_TMP/minio" >"$FENCE_SERVERS_TMP/minio.log" 2>&1 &
	FENCE_MINIO_PID=$!
	"$FENCE_CACHE/dynalite/node_modules/.bin/dynalite" --host 127.0.0.1 --port "$dynport" \
		--path "$FENCE_SERVERS_TMP/dynalite" >"$FENCE_SERVERS_TMP/dynalite.log" 2>&1 &
	FENCE_DYNALITE_PID=$!

	fence_wait_port "$s3port" "$FENCE_MINIO_PID" 60 || { cat "$FENCE_SERVERS_TMP/minio.log" >&2; return 1; }
	fence_wait_port "$dynport" "$FENCE_DYNALITE_PID" 60 || { cat "$FENCE_SERVERS_TMP/dynalite.log" >&2; return 1; }

	export FENCE_TEST_S3_ENDPOINT="http://127.0.0.1:$s3port"
	export FENCE_TEST_DYNAMODB_ENDPOINT="http://127.0.0.1:$dynport"
	# For tests that restart or start their own servers.
	export FENCE_TEST_MINIO_BIN="$FENCE_CACHE/bin/minio"
	export FENCE_TEST_DYNALITE_BIN="$FENCE_CACHE/dynalite/node_modules/.bin/dynalite"
	fence_log "MinIO at $FENCE_TEST_S3_ENDPOINT (pid $FENCE_MINIO_PID), dynalite at $FENCE_TEST_DYNAMODB_ENDPOINT (pid $FENCE_DYNALITE_PID)"
	fence_versitygw_start
}
