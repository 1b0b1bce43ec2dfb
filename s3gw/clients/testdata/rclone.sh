#!/usr/bin/env bash
# The client scenario of s3gw/clients with rclone:
#
#   bash rclone.sh /usr/bin/rclone
#
# It reads the endpoint, credentials, bucket, prefix and source directory
# from the environment (s3gw/clients/contract_test.go) and exits 0 only
# when every step held. rclone shows no ETags, pages or copies of its
# own, so the steps that need them read its --dump headers log.
set -euo pipefail
rclone=${1:?usage: rclone.sh RCLONE-BINARY}
: "${AWS_ENDPOINT_URL:?}" "${AWS_REGION:?}" "${AWS_ACCESS_KEY_ID:?}" "${AWS_SECRET_ACCESS_KEY:?}"
: "${FENCE_S3_BUCKET:?}" "${FENCE_S3_PREFIX:?}" "${FENCE_S3_SRC:?}"
src=$FENCE_S3_SRC
bucket=$FENCE_S3_BUCKET
p=$FENCE_S3_PREFIX
r="gw:$bucket/$p"

fail() {
	echo "rclone scenario: $*" >&2
	exit 1
}
step() { echo "rclone scenario: $*" >&2; }
trap 'echo "rclone scenario: line $LINENO failed: $BASH_COMMAND" >&2' ERR

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The remote "gw", from the environment: path style, and no check or
# creation of the bucket (the job owns a prefix, not the bucket).
export RCLONE_CONFIG_GW_TYPE=s3 RCLONE_CONFIG_GW_PROVIDER=Other
export RCLONE_CONFIG_GW_ENDPOINT=$AWS_ENDPOINT_URL RCLONE_CONFIG_GW_REGION=$AWS_REGION
export RCLONE_CONFIG_GW_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID RCLONE_CONFIG_GW_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY
export RCLONE_CONFIG_GW_FORCE_PATH_STYLE=true RCLONE_CONFIG_GW_NO_CHECK_BUCKET=true
export RCLONE_CONFIG="$work/rclone.conf"
: >"$RCLONE_CONFIG"
opts=(--retries 1 --low-level-retries 1)
# rclone 1.60 fails on any endpoint while AWS_CA_BUNDLE is set ("unable
# to load custom CA bundle, HTTPClient's transport unsupported type"):
# the bundle goes to --ca-cert instead.
if [[ -n "${AWS_CA_BUNDLE:-}" ]]; then
	opts+=(--ca-cert "$AWS_CA_BUNDLE")
	unset AWS_CA_BUNDLE
fi
rc() { "$rclone" "${opts[@]}" "$@"; }
# requests prints, from the --dump headers log $1, each request line
# ("GET /path HTTP/1.1") and each response status line, in order.
requests() { sed -nE 's/^.* DEBUG : (([A-Z]+ \/.*)|(HTTP\/1\.1 [0-9]{3}.*)) *$/\1/p' "$1"; }

step "1. put small.bin"
rc copyto "$src/small.bin" "${r}small.bin" || fail "put small.bin failed"

step "2. multipart upload of big.bin"
rc copyto --s3-upload-cutoff 8M --s3-chunk-size 16M --dump headers "$src/big.bin" "${r}big.bin" 2>"$work/big.log" ||
	fail "put big.bin failed: $(tail -n 20 "$work/big.log")"
parts=$(requests "$work/big.log" | grep -cE "^PUT /$bucket/${p}big\.bin\?.*partNumber=" || true)
((parts >= 3)) || fail "big.bin went in $parts parts, want a multipart upload of at least 3: $(requests "$work/big.log")"

step "3. get small.bin, and bytes 1000-1999 of big.bin"
rc cat "${r}small.bin" >"$work/small.got" || fail "get small.bin failed"
cmp "$work/small.got" "$src/small.bin" || fail "small.bin came back different"
rc cat --offset 1000 --count 1000 "${r}big.bin" >"$work/range.got" || fail "ranged get of big.bin failed"
dd if="$src/big.bin" of="$work/range.want" bs=1000 skip=1 count=1 status=none
cmp "$work/range.got" "$work/range.want" || fail "bytes 1000-1999 of big.bin came back different"

step "4. put list/0 .. list/4, list them 2 a page"
for i in 0 1 2 3 4; do
	rc copyto "$src/list/$i" "${r}list/$i" || fail "put list/$i failed"
done
keys=$(rc lsf --s3-list-chunk 2 --dump headers "${r}list/" 2>"$work/list.log" | tr '\n' ' ') ||
	fail "lsf failed: $(tail -n 20 "$work/list.log")"
[[ "$keys" == "0 1 2 3 4 " ]] || fail "listed [$keys] under ${p}list/, want [0 1 2 3 4 ]"
pages=$(requests "$work/list.log" | grep -cE "^GET /$bucket/?\?.*max-keys=2" || true)
((pages >= 3)) || fail "listed in $pages pages of at most 2 keys, want at least 3: $(requests "$work/list.log")"

step "5. server-side copy small.bin -> copy.bin"
rc copyto --dump headers "${r}small.bin" "${r}copy.bin" 2>"$work/copy.log" ||
	fail "copy failed: $(tail -n 20 "$work/copy.log")"
grep -qi "X-Amz-Copy-Source: $bucket/${p}small.bin" "$work/copy.log" ||
	fail "copy.bin was not made by a server-side copy (no X-Amz-Copy-Source): $(requests "$work/copy.log")"

step "6. put gone.bin, delete it, check it is gone"
rc copyto "$src/small.bin" "${r}gone.bin" || fail "put gone.bin failed"
rc deletefile "${r}gone.bin" || fail "delete gone.bin failed"
# rclone takes a path that holds no object for a directory: what shows
# the object gone is its HEAD's 404.
rc copyto --dump headers "${r}gone.bin" "$work/gone.got" 2>"$work/gone.log" || true
[[ ! -e "$work/gone.got" ]] || fail "gone.bin was read back after its delete"
head=$(requests "$work/gone.log" | grep -A1 -E "^HEAD /$bucket/${p}gone\.bin " | sed -n 2p)
[[ "$head" == "HTTP/1.1 404"* ]] || fail "HEAD of the deleted gone.bin answered [$head], want 404: $(requests "$work/gone.log")"

step "every step held"
