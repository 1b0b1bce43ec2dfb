// Package clients drives real S3 clients, which no one here wrote, through
// one scenario each, against a target: MinIO directly now, and the S3
// gateway of `fence exec DOMAIN --s3 -- CMD` (issue 36) once it exists.
// A client's scenario passes against MinIO first, so that a later failure
// through the gateway is the gateway's.
//
// Each scenario is a program (a script under testdata/, or this test
// binary run again for the Go clients) that reads the endpoint,
// credentials, bucket and key prefix from the environment (contract),
// writes and reads under the prefix, and exits 0 only when every step
// held. The test then reads what the target stored through its own client
// (checkStored).
//
// The targets here: minioTarget (TestClients), MinIO behind an HTTPS
// proxy of the test (TestClientsHTTPS: each client trusts the endpoint
// through the contract's CA bundle, and sends what it sends over TLS), and
// MinIO behind a proxy that gets one step wrong (TestScenariosCatchFaults:
// each scenario then fails at that step).
//
// The clients are found through environment variables that
// deploy/local/test.sh sets: FENCE_TEST_AWSCLI, FENCE_TEST_S3CMD,
// FENCE_TEST_RCLONE, FENCE_TEST_BOTO3_PYTHON and FENCE_TEST_AWSJS. A test
// whose client is missing skips, saying which variable is unset, unless
// FENCE_TEST_S3_CLIENTS=1 (set by the test command), when it fails.
package clients
