#!/usr/bin/env bash
# The client scenario of s3gw/clients with s3cmd:
#
#   bash s3cmd.sh /usr/bin/s3cmd
#
# It reads the endpoint, credentials, bucket, prefix and source directory
# from the environment (s3gw/clients/contract_test.go) and exits 0 only
# when every step held.
set -euo pipefail
s3cmd=${1:?usage: s3cmd.sh S3CMD-BINARY}
: "${AWS_ENDPOINT_URL:?}" "${AWS_REGION:?}" "${AWS_ACCESS_KEY_ID:?}" "${AWS_SECRET_ACCESS_KEY:?}"
: "${FENCE_S3_BUCKET:?}" "${FENCE_S3_PREFIX:?}" "${FENCE_S3_SRC:?}"
src=$FENCE_S3_SRC
p=$FENCE_S3_PREFIX
url="s3://$FENCE_S3_BUCKET/$p"

fail() {
	echo "s3cmd scenario: $*" >&2
	exit 1
}
step() { echo "s3cmd scenario: $*" >&2; }
trap 'echo "s3cmd scenario: line $LINENO failed: $BASH_COMMAND" >&2' ERR

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

case $AWS_ENDPOINT_URL in
http://*) https=False ;;
https://*) https=True ;;
*) fail "AWS_ENDPOINT_URL=$AWS_ENDPOINT_URL is not an http:// or https:// URL" ;;
esac
host=${AWS_ENDPOINT_URL#*://}
host=${host%%/*}
# host_bucket without %(bucket)s: path style. Multipart uploads in 16
# MiB parts: big.bin goes in 3.
cat >"$work/s3cfg" <<EOF
[default]
access_key = $AWS_ACCESS_KEY_ID
secret_key = $AWS_SECRET_ACCESS_KEY
host_base = $host
host_bucket = $host
use_https = $https
check_ssl_certificate = True
check_ssl_hostname = True
ca_certs_file = ${AWS_CA_BUNDLE:-}
bucket_location = $AWS_REGION
signature_v2 = False
multipart_chunk_size_mb = 16
progress_meter = False
EOF
s() { "$s3cmd" --config="$work/s3cfg" "$@"; }

step "1. put small.bin"
s put --quiet "$src/small.bin" "${url}small.bin" || fail "put small.bin failed"

step "2. multipart upload of big.bin"
s put --quiet --multipart-chunk-size-mb=16 "$src/big.bin" "${url}big.bin" || fail "put big.bin failed"
# s3cmd info shows the MD5 it stored in its own metadata, not the ETag;
# its debug log has the HEAD response's headers.
info=$(s --debug info "${url}big.bin" 2>&1) || fail "info big.bin failed: $info"
etag=$(sed -n "s/.*'etag': '\\(.*\\)',\\?\$/\\1/p" <<<"$info" | head -n1)
[[ "$etag" =~ -([0-9]+)\"?$ ]] && ((BASH_REMATCH[1] >= 3)) ||
	fail "big.bin's ETag is [$etag]: not that of a multipart upload of at least 3 parts"

step "3. get small.bin, and big.bin from byte 1000"
s get --quiet "${url}small.bin" "$work/small.got" || fail "get small.bin failed"
cmp "$work/small.got" "$src/small.bin" || fail "small.bin came back different"
# s3cmd has no ranged get of its own; --continue on a partial file asks
# for "Range: bytes=<its size>-".
head -c 1000 "$src/big.bin" >"$work/big.got"
s get --quiet --continue "${url}big.bin" "$work/big.got" || fail "ranged get of big.bin (--continue) failed"
cmp "$work/big.got" "$src/big.bin" || fail "big.bin from byte 1000 came back different"

step "4. put list/0 .. list/4, list them"
for i in 0 1 2 3 4; do
	s put --quiet "$src/list/$i" "${url}list/$i" || fail "put list/$i failed"
done
# s3cmd ls uses ListObjects (v1) and pages by itself, with no page size
# to set: the 5 keys are what it shows.
listing=$(s ls "${url}list/") || fail "ls failed"
keys=$(awk '{print $NF}' <<<"$listing" | tr '\n' ' ')
want="${url}list/0 ${url}list/1 ${url}list/2 ${url}list/3 ${url}list/4 "
[[ "$keys" == "$want" ]] || fail "listed [$keys], want [$want]"

step "5. server-side copy small.bin -> copy.bin"
s cp --quiet "${url}small.bin" "${url}copy.bin" || fail "copy failed"

step "6. put gone.bin, delete it, check it is gone"
s put --quiet "$src/small.bin" "${url}gone.bin" || fail "put gone.bin failed"
s del --quiet "${url}gone.bin" || fail "delete gone.bin failed"
if out=$(s info "${url}gone.bin" 2>&1); then
	fail "gone.bin is still there after its delete: $out"
fi
[[ "$out" == *404* ]] || fail "info of the deleted gone.bin failed, but not with 404: $out"

step "every step held"
