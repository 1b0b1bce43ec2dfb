package clients

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// scenarioEnv names the Go client whose scenario TestScenarioHelper runs.
const scenarioEnv = "FENCE_CLIENTS_SCENARIO"

// goScenarios are the Go clients' scenarios, by the value of scenarioEnv.
var goScenarios = map[string]func(t *testing.T, s scenarioInput){
	"aws-sdk-go-v2": awsGoScenario,
	"minio-go":      minioGoScenario,
}

// TestScenarioHelper is not a test: runClients runs this test binary
// again as a scenario's CMD, with scenarioEnv naming a Go client, so that
// the Go clients read the contract from their environment like the
// others. It fails, and the binary exits non-zero, when a step fails.
func TestScenarioHelper(t *testing.T) {
	name := os.Getenv(scenarioEnv)
	if name == "" {
		t.Skipf("run by TestClients as a Go client's CMD, with %s set", scenarioEnv)
	}
	run, ok := goScenarios[name]
	if !ok {
		t.Fatalf("%s=%q names no Go scenario", scenarioEnv, name)
	}
	run(t, readScenarioInput(t))
}

// scenarioInput is what a Go scenario reads from its environment, with
// the sources read into memory.
type scenarioInput struct {
	endpoint, region, caBundle string
	bucket, prefix             string
	small, big                 []byte
	list                       [listCount][]byte
}

func readScenarioInput(t *testing.T) scenarioInput {
	t.Helper()
	get := func(name string) string {
		v := os.Getenv(name)
		if v == "" {
			t.Fatalf("%s is not set: the scenario reads it from its environment", name)
		}
		return v
	}
	src := get("FENCE_S3_SRC")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(name)))
		if err != nil {
			t.Fatalf("reading source %s: %v", name, err)
		}
		return b
	}
	in := scenarioInput{
		endpoint: get("AWS_ENDPOINT_URL"),
		region:   get("AWS_REGION"),
		caBundle: os.Getenv("AWS_CA_BUNDLE"),
		bucket:   get("FENCE_S3_BUCKET"),
		prefix:   get("FENCE_S3_PREFIX"),
		small:    read("small.bin"),
		big:      read("big.bin"),
	}
	for i := range listCount {
		in.list[i] = read(fmt.Sprintf("list/%d", i))
	}
	return in
}

// partSize is the Go clients' multipart part size: big.bin in 3 parts.
const partSize = 16 << 20

var multipartETag = regexp.MustCompile(`-([0-9]+)"?$`)

// checkMultipartETag fails t unless etag is that of a multipart upload of
// at least 3 parts.
func checkMultipartETag(t *testing.T, etag string) {
	t.Helper()
	m := multipartETag.FindStringSubmatch(etag)
	if m == nil {
		t.Fatalf("big.bin's ETag is %s: not that of a multipart upload", etag)
	}
	if n, _ := strconv.Atoi(m[1]); n < 3 {
		t.Fatalf("big.bin's ETag is %s: a multipart upload of %d parts, want at least 3", etag, n)
	}
}

// checkBytes fails t unless got equals want.
func checkBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("%s came back different: %d bytes, want %d", what, len(got), len(want))
	}
}

// checkListed fails t unless keys are the five list/ keys, in order, read
// in at least 3 pages.
func checkListed(t *testing.T, prefix string, keys []string, pages int) {
	t.Helper()
	var want []string
	for i := range listCount {
		want = append(want, fmt.Sprintf("%slist/%d", prefix, i))
	}
	if fmt.Sprint(keys) != fmt.Sprint(want) {
		t.Fatalf("listed %v, want %v", keys, want)
	}
	if pages < 3 {
		t.Fatalf("listed in %d pages, want at least 3", pages)
	}
}
