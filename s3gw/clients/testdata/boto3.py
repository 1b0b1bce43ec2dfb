"""The client scenario of s3gw/clients with boto3:

    /usr/bin/python3 boto3.py

It reads the endpoint, credentials, bucket, prefix and source directory
from the environment (s3gw/clients/contract_test.go) and exits 0 only
when every step held. Debian's boto3 (1.26) predates AWS_ENDPOINT_URL:
the endpoint is passed as endpoint_url.
"""

import os
import sys

# This file is boto3.py: Python puts its directory first on sys.path,
# where "import boto3" would find it instead of the library.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path = [d for d in sys.path if os.path.abspath(d or ".") != _here]

import boto3  # noqa: E402
import botocore.config  # noqa: E402
import botocore.exceptions  # noqa: E402
from boto3.s3.transfer import TransferConfig  # noqa: E402

MiB = 1 << 20


def fail(msg):
    print("boto3 scenario: " + msg, file=sys.stderr)
    sys.exit(1)


def step(msg):
    print("boto3 scenario: " + msg, file=sys.stderr)


def env(name):
    v = os.environ.get(name, "")
    if not v:
        fail(name + " is not set: the scenario reads it from its environment")
    return v


def main():
    endpoint = env("AWS_ENDPOINT_URL")
    bucket = env("FENCE_S3_BUCKET")
    p = env("FENCE_S3_PREFIX")
    src = env("FENCE_S3_SRC")
    ca = os.environ.get("AWS_CA_BUNDLE") or None
    s3 = boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name=env("AWS_REGION"),
        verify=ca if endpoint.startswith("https://") else None,
        config=botocore.config.Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )

    def source(name):
        with open(os.path.join(src, name), "rb") as f:
            return f.read()

    small, big = source("small.bin"), source("big.bin")

    step("1. put small.bin")
    s3.put_object(Bucket=bucket, Key=p + "small.bin", Body=small)

    step("2. multipart upload of big.bin")
    # 16 MiB parts from 8 MiB up: big.bin goes in 3.
    s3.upload_file(os.path.join(src, "big.bin"), bucket, p + "big.bin",
                   Config=TransferConfig(multipart_threshold=8 * MiB, multipart_chunksize=16 * MiB))
    etag = s3.head_object(Bucket=bucket, Key=p + "big.bin")["ETag"].strip('"')
    _, dash, n = etag.rpartition("-")
    if not dash or not n.isdigit() or int(n) < 3:
        fail("big.bin's ETag is %s: not that of a multipart upload of at least 3 parts" % etag)

    step("3. get small.bin, and bytes 1000-1999 of big.bin")
    got = s3.get_object(Bucket=bucket, Key=p + "small.bin")["Body"].read()
    if got != small:
        fail("small.bin came back different: %d bytes, want %d" % (len(got), len(small)))
    got = s3.get_object(Bucket=bucket, Key=p + "big.bin", Range="bytes=1000-1999")["Body"].read()
    if got != big[1000:2000]:
        fail("bytes 1000-1999 of big.bin came back different: %d bytes" % len(got))

    step("4. put list/0 .. list/4, list them 2 a page")
    for i in range(5):
        s3.put_object(Bucket=bucket, Key="%slist/%d" % (p, i), Body=source("list/%d" % i))
    keys, pages = [], 0
    for page in s3.get_paginator("list_objects_v2").paginate(
            Bucket=bucket, Prefix=p + "list/", PaginationConfig={"PageSize": 2}):
        pages += 1
        contents = page.get("Contents", [])
        if len(contents) > 2:
            fail("page %d held %d keys; asked for at most 2" % (pages, len(contents)))
        keys += [o["Key"] for o in contents]
    want = ["%slist/%d" % (p, i) for i in range(5)]
    if keys != want:
        fail("listed %s, want %s" % (keys, want))
    if pages < 3:
        fail("listed in %d pages, want at least 3" % pages)

    step("5. server-side copy small.bin -> copy.bin")
    s3.copy_object(Bucket=bucket, Key=p + "copy.bin", CopySource={"Bucket": bucket, "Key": p + "small.bin"})

    step("6. put gone.bin, delete it, check it is gone")
    s3.put_object(Bucket=bucket, Key=p + "gone.bin", Body=small)
    s3.delete_object(Bucket=bucket, Key=p + "gone.bin")
    try:
        s3.head_object(Bucket=bucket, Key=p + "gone.bin")
        fail("gone.bin is still there after its delete")
    except botocore.exceptions.ClientError as e:
        status = e.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if status != 404:
            fail("head of the deleted gone.bin failed, but not with 404: %s" % e)

    step("every step held")


if __name__ == "__main__":
    try:
        main()
    except botocore.exceptions.BotoCoreError as e:
        fail("%s: %s" % (type(e).__name__, e))
    except botocore.exceptions.ClientError as e:
        fail("%s" % e)
