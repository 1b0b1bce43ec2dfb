#!/usr/bin/env bash
# The client scenario of s3gw/clients with the aws cli:
#
#   bash awscli.sh /usr/bin/aws
#
# It reads the endpoint, credentials, bucket, prefix and source directory
# from the environment (s3gw/clients/contract_test.go) and exits 0 only
# when every step held.
set -euo pipefail
aws=${1:?usage: awscli.sh AWS-CLI-BINARY}
: "${AWS_ENDPOINT_URL:?}" "${AWS_REGION:?}" "${FENCE_S3_BUCKET:?}" "${FENCE_S3_PREFIX:?}" "${FENCE_S3_SRC:?}"
src=$FENCE_S3_SRC
bucket=$FENCE_S3_BUCKET
p=$FENCE_S3_PREFIX
url="s3://$bucket/$p"

fail() {
	echo "awscli scenario: $*" >&2
	exit 1
}
step() { echo "awscli scenario: $*" >&2; }
trap 'echo "awscli scenario: line $LINENO failed: $BASH_COMMAND" >&2' ERR

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Path style, and a multipart upload in 16 MiB parts for anything from
# 8 MiB (the aws cli's MB are MiB): big.bin goes in 3 parts.
cat >"$work/config" <<EOF
[default]
region = $AWS_REGION
s3 =
  addressing_style = path
  multipart_threshold = 8MB
  multipart_chunksize = 16MB
EOF
export AWS_CONFIG_FILE="$work/config" AWS_SHARED_CREDENTIALS_FILE="$work/credentials"

# aws cli 2.9 predates AWS_ENDPOINT_URL: pass it. It reads AWS_CA_BUNDLE
# itself.
a() { "$aws" --endpoint-url "$AWS_ENDPOINT_URL" "$@"; }

step "1. put small.bin"
a s3 cp --only-show-errors "$src/small.bin" "${url}small.bin" || fail "put small.bin failed"

step "2. multipart upload of big.bin"
a s3 cp --only-show-errors "$src/big.bin" "${url}big.bin" || fail "put big.bin failed"
etag=$(a s3api head-object --bucket "$bucket" --key "${p}big.bin" --query ETag --output text) || fail "head big.bin failed"
[[ "$etag" =~ -([0-9]+)\"?$ ]] && ((BASH_REMATCH[1] >= 3)) ||
	fail "big.bin's ETag is $etag: not that of a multipart upload of at least 3 parts"

step "3. get small.bin, and bytes 1000-1999 of big.bin"
a s3 cp --only-show-errors "${url}small.bin" "$work/small.got" || fail "get small.bin failed"
cmp "$work/small.got" "$src/small.bin" || fail "small.bin came back different"
a s3api get-object --bucket "$bucket" --key "${p}big.bin" --range bytes=1000-1999 "$work/range.got" >/dev/null ||
	fail "ranged get of big.bin failed"
dd if="$src/big.bin" of="$work/range.want" bs=1000 skip=1 count=1 status=none
cmp "$work/range.got" "$work/range.want" || fail "bytes 1000-1999 of big.bin came back different"

step "4. put list/0 .. list/4, list them 2 a page"
for i in 0 1 2 3 4; do
	a s3api put-object --bucket "$bucket" --key "${p}list/$i" --body "$src/list/$i" >/dev/null || fail "put list/$i failed"
done
# The low-level call, one page each: the high-level one hides the pages.
keys=() pages=0 token=
while :; do
	args=(--bucket "$bucket" --prefix "${p}list/" --no-paginate --max-keys 2 --output text
		--query '[NextContinuationToken, Contents[].Key]')
	[[ -n "$token" ]] && args+=(--continuation-token "$token")
	page=$(a s3api list-objects-v2 "${args[@]}") || fail "list-objects-v2 (page $((pages + 1))) failed"
	pages=$((pages + 1))
	token=$(head -n1 <<<"$page")
	read -r -a got <<<"$(sed -n 2p <<<"$page")"
	((${#got[@]} <= 2)) || fail "page $pages held ${#got[@]} keys; asked for at most 2"
	keys+=("${got[@]}")
	[[ "$token" == None ]] && break
	((pages < 10)) || fail "more than 10 pages for 5 keys"
done
want="${p}list/0 ${p}list/1 ${p}list/2 ${p}list/3 ${p}list/4"
[[ "${keys[*]}" == "$want" ]] || fail "listed [${keys[*]}], want [$want]"
((pages >= 3)) || fail "listed in $pages pages, want at least 3"

step "5. server-side copy small.bin -> copy.bin"
a s3 cp --only-show-errors "${url}small.bin" "${url}copy.bin" || fail "copy failed"

step "6. put gone.bin, delete it, check it is gone"
a s3 cp --only-show-errors "$src/small.bin" "${url}gone.bin" || fail "put gone.bin failed"
a s3 rm --only-show-errors "${url}gone.bin" || fail "delete gone.bin failed"
if out=$(a s3api head-object --bucket "$bucket" --key "${p}gone.bin" 2>&1); then
	fail "gone.bin is still there after its delete: $out"
fi
[[ "$out" == *"(404)"* ]] || fail "head of the deleted gone.bin failed, but not with 404: $out"

step "every step held"
