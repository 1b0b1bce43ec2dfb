// The client scenario of s3gw/clients with AWS's JavaScript SDK v3
// (@aws-sdk/client-s3 and @aws-sdk/lib-storage):
//
//   node client-s3.mjs DIR    # DIR holds node_modules with both packages
//
// It reads the endpoint, credentials, bucket, prefix and source directory
// from the environment (s3gw/clients/contract_test.go) and exits 0 only
// when every step held. It keeps the SDK's defaults for request
// checksums: over HTTPS a body of known length that is a stream goes as
// aws-chunked with a CRC trailer, which is what a gateway must decode.
// NODE_EXTRA_CA_CERTS makes node trust the endpoint's certificate.
import { createReadStream, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const [dir] = process.argv.slice(2);
if (!dir) fail("usage: node client-s3.mjs DIR (the directory holding node_modules)");
const require = createRequire(join(dir, "node_modules", "noop.js"));
const {
  S3Client, PutObjectCommand, GetObjectCommand, HeadObjectCommand, CopyObjectCommand,
  DeleteObjectCommand, paginateListObjectsV2,
} = require("@aws-sdk/client-s3");
const { Upload } = require("@aws-sdk/lib-storage");

function fail(msg) {
  console.error("client-s3 scenario: " + msg);
  process.exit(1);
}
function step(msg) {
  console.error("client-s3 scenario: " + msg);
}
function env(name) {
  const v = process.env[name];
  if (!v) fail(`${name} is not set: the scenario reads it from its environment`);
  return v;
}

const MiB = 1 << 20;
const endpoint = env("AWS_ENDPOINT_URL");
const Bucket = env("FENCE_S3_BUCKET");
const p = env("FENCE_S3_PREFIX");
const src = env("FENCE_S3_SRC");
const s3 = new S3Client({ endpoint, region: env("AWS_REGION"), forcePathStyle: true, maxAttempts: 1 });
const source = (name) => join(src, name);
const small = readFileSync(source("small.bin"));
const big = readFileSync(source("big.bin"));

async function get(Key, Range) {
  const out = await s3.send(new GetObjectCommand({ Bucket, Key, Range }));
  return Buffer.from(await out.Body.transformToByteArray());
}

async function main() {
  step("1. put small.bin");
  // A stream of known length: over HTTPS the SDK sends it aws-chunked,
  // with its CRC32 in a trailer.
  await s3.send(new PutObjectCommand({
    Bucket, Key: p + "small.bin", Body: createReadStream(source("small.bin")),
    ContentLength: statSync(source("small.bin")).size,
  }));

  step("2. multipart upload of big.bin");
  await new Upload({
    client: s3, partSize: 16 * MiB, queueSize: 2, leavePartsOnError: false,
    params: { Bucket, Key: p + "big.bin", Body: createReadStream(source("big.bin")) },
  }).done();
  const etag = (await s3.send(new HeadObjectCommand({ Bucket, Key: p + "big.bin" }))).ETag;
  const m = /-([0-9]+)"?$/.exec(etag || "");
  if (!m || Number(m[1]) < 3) fail(`big.bin's ETag is ${etag}: not that of a multipart upload of at least 3 parts`);

  step("3. get small.bin, and bytes 1000-1999 of big.bin");
  let got = await get(p + "small.bin");
  if (!got.equals(small)) fail(`small.bin came back different: ${got.length} bytes, want ${small.length}`);
  got = await get(p + "big.bin", "bytes=1000-1999");
  if (!got.equals(big.subarray(1000, 2000))) fail(`bytes 1000-1999 of big.bin came back different: ${got.length} bytes`);

  step("4. put list/0 .. list/4, list them 2 a page");
  for (let i = 0; i < 5; i++) {
    await s3.send(new PutObjectCommand({ Bucket, Key: `${p}list/${i}`, Body: readFileSync(source(`list/${i}`)) }));
  }
  const keys = [];
  let pages = 0;
  for await (const page of paginateListObjectsV2({ client: s3, pageSize: 2 }, { Bucket, Prefix: p + "list/" })) {
    pages++;
    const contents = page.Contents || [];
    if (contents.length > 2) fail(`page ${pages} held ${contents.length} keys; asked for at most 2`);
    keys.push(...contents.map((o) => o.Key));
  }
  const want = [0, 1, 2, 3, 4].map((i) => `${p}list/${i}`);
  if (keys.join(" ") !== want.join(" ")) fail(`listed [${keys.join(" ")}], want [${want.join(" ")}]`);
  if (pages < 3) fail(`listed in ${pages} pages, want at least 3`);

  step("5. server-side copy small.bin -> copy.bin");
  await s3.send(new CopyObjectCommand({ Bucket, Key: p + "copy.bin", CopySource: encodeURI(`${Bucket}/${p}small.bin`) }));

  step("6. put gone.bin, delete it, check it is gone");
  await s3.send(new PutObjectCommand({ Bucket, Key: p + "gone.bin", Body: small }));
  await s3.send(new DeleteObjectCommand({ Bucket, Key: p + "gone.bin" }));
  try {
    await s3.send(new HeadObjectCommand({ Bucket, Key: p + "gone.bin" }));
    fail("gone.bin is still there after its delete");
  } catch (e) {
    const status = e.$metadata && e.$metadata.httpStatusCode;
    if (status !== 404) fail(`head of the deleted gone.bin failed, but not with 404: ${e}`);
  }
  step("every step held");
}

main().catch((e) => fail(`${e.name || "error"}: ${e.message || e}`));
