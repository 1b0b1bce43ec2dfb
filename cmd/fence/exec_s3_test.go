package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/s3gw"
)

// envS3Steps makes the test binary an S3 client of exec --s3's endpoint
// (TestMain runs the steps and exits): the job of the tests below, with
// aws-sdk-go-v2 reading exec's environment as any job's SDK does. Steps
// are separated by ";":
//
//	put KEY VALUE   PutObject of FENCE_S3_PREFIX+KEY
//	put-big KEY N   PutObject of N bytes, too many to keep inline: staged
//	delete KEY      DeleteObject
//	touch FILE      create FILE
//	wait FILE       wait until FILE exists
//	ignore-term     ignore SIGTERM from now on
//	put-until-refused KEY FILE  put KEY every 20 ms until a put fails, then write its S3 code to FILE
const envS3Steps = "FENCE_TEST_S3_STEPS"

func runS3Steps(steps string) int {
	ctx := context.Background()
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true; o.RetryMaxAttempts = 1 })
	bucket, prefix := os.Getenv("FENCE_S3_BUCKET"), os.Getenv("FENCE_S3_PREFIX")
	put := func(key, value string) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(prefix + key), Body: strings.NewReader(value)})
		return err
	}
	for _, step := range strings.Split(steps, ";") {
		f := strings.Fields(step)
		if len(f) == 0 {
			continue
		}
		var err error
		switch f[0] {
		case "put":
			err = put(f[1], f[2])
		case "put-big":
			n, _ := strconv.Atoi(f[2])
			err = put(f[1], strings.Repeat("x", n))
		case "delete":
			_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(prefix + f[1])})
		case "touch":
			err = os.WriteFile(f[1], nil, 0o644)
		case "wait":
			for {
				if _, err := os.Stat(f[1]); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		case "ignore-term":
			signal.Ignore(syscall.SIGTERM)
		case "put-until-refused":
			for {
				if perr := put(f[1], "late"); perr != nil {
					code := "no S3 code: " + perr.Error()
					var ae smithy.APIError
					if errors.As(perr, &ae) {
						code = ae.ErrorCode() + ": " + ae.ErrorMessage()
					}
					err = os.WriteFile(f[2], []byte(code), 0o644)
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		default:
			err = fmt.Errorf("unknown step %q", step)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "s3 step %q: %v\n", step, err)
			return 1
		}
	}
	return 0
}

// s3Job returns exec's CMD that runs steps against the endpoint.
func s3Job(steps string) []string {
	self, _ := os.Executable()
	return []string{"env", envS3Steps + "=" + steps, self}
}

func (c *cli) keys(domain string) map[string]uint64 {
	c.t.Helper()
	var keys []struct {
		Key   string
		Token uint64
	}
	r := c.want(0, "", "ls", domain, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &keys); err != nil {
		c.t.Fatalf("ls --json printed %q: %v", r.stdout, err)
	}
	out := map[string]uint64{}
	for _, k := range keys {
		out[k.Key] = k.Token
	}
	return out
}

// stagedObjects lists the version objects of domain in the store at
// URL store: what is staged or published.
func stagedObjects(t *testing.T, store, domain string) []string {
	t.Helper()
	b, err := config.OpenBackend(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out []string
	err = b.List(context.Background(), domain+"/_fence/v/", func(o driver.ObjectInfo) error {
		out = append(out, o.Key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// exec --s3 publishes the job's S3 writes as one commit at its token
// once it exits 0, and nothing when it exits non-zero; the job reads the
// endpoint's address, bucket, key prefix and credentials from its
// environment.
func TestExecS3(t *testing.T) {
	c := newCLI(t)
	tok := strconv.FormatUint(c.acquire("d"), 10)
	c.want(0, "", "put", "d", "old", "-", "--token", tok)
	c.want(0, "", "lease", "release", "d", "--token", tok)
	r := c.want(0, "", append([]string{"exec", "d", "--s3", "--"}, s3Job("put a.csv one;put b.csv two;delete old")...)...)
	if !strings.Contains(r.stderr, `bucket "fence", keys under "d/"`) {
		t.Errorf("exec did not say where its endpoint is: %s", r.stderr)
	}
	keys := c.keys("d")
	if len(keys) != 2 || keys["a.csv"] == 0 || keys["a.csv"] != keys["b.csv"] {
		t.Fatalf("keys after exec --s3: %v, want a.csv and b.csv at one token", keys)
	}
	if got := c.want(0, "", "get", "d", "b.csv").stdout; got != "two" {
		t.Fatalf("b.csv = %q", got)
	}
	// A job that fails publishes nothing, and leaves nothing staged: its
	// small value was held in the gateway, its large one staged and then
	// discarded.
	before := len(stagedObjects(t, c.store, "d"))
	if before != 0 {
		t.Fatalf("%d version objects after the first job, whose values are kept inline", before)
	}
	self, _ := os.Executable()
	c.want(1, "", "exec", "d", "--s3", "--", "sh", "-c", `env `+envS3Steps+`="put c.csv three;put-big e.csv 10000" "$0" && exit 1`, self)
	if keys := c.keys("d"); len(keys) != 2 {
		t.Fatalf("a failed job published: %v", keys)
	}
	if after := len(stagedObjects(t, c.store, "d")); after != before {
		t.Fatalf("a failed job left %d staged objects", after-before)
	}
}

// A job stopped past its lease while another holder takes over, then
// resumed, publishes nothing of what it wrote through the endpoint, and
// exits 3 or 5; the newer holder's key stands.
func TestExecS3StoppedPastItsLease(t *testing.T) { s3StoppedPastItsLease(t, newCLI(t)) }

// TestServersExecS3StoppedPastItsLease is the same on MinIO, with
// leases in dynalite.
func TestServersExecS3StoppedPastItsLease(t *testing.T) {
	s3ep, dynep := endpoints(t, true, true)
	bucket, table := unique("fence-cli-s3stop-"), unique("fence-cli-s3stop-")
	removeBucket(t, s3ep, bucket)
	removeTable(t, dynep, table)
	c := newCLI(t)
	c.store = "minio://" + bucket + "?endpoint=" + s3ep
	c.global = []string{"--coord", "dynamodb://" + table + "?endpoint=" + dynep}
	c.want(0, "", "init")
	s3StoppedPastItsLease(t, c)
}

func s3StoppedPastItsLease(t *testing.T, c *cli) {
	cmd, stdout, stderr := c.startExec(append([]string{"exec", "d", "--ttl", "2s", "--s3", "--"},
		s3Job("put r.csv mine;put mine.csv mine;touch ready;wait go")...)...)
	waitFile(t, filepath.Join(c.dir, "ready"))
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond)
	tok := c.acquire("d", "--holder", "newer")
	c.want(0, "theirs", "put", "d", "r.csv", "-", "--token", strconv.FormatUint(tok, 10))
	if err := os.WriteFile(filepath.Join(c.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	code := exitStatus(t, cmd.Wait())
	if code != exitFenced && code != exitLost {
		t.Fatalf("exec --s3 resumed past its lease: exit %d, want %d or %d\nstdout: %s\nstderr: %s", code, exitFenced, exitLost, stdout, stderr)
	}
	t.Logf("exec --s3 resumed past its lease: exit %d: %s", code, strings.TrimSpace(stderr.String()))
	keys := c.keys("d")
	if len(keys) != 1 || keys["r.csv"] != tok {
		t.Fatalf("keys after the takeover: %v; want r.csv alone, at the newer holder's token %d", keys, tok)
	}
	if r := c.want(0, "", "get", "d", "r.csv"); r.stdout != "theirs" {
		t.Fatalf("r.csv = %q; want the newer holder's", r.stdout)
	}
	// The stale job's staged values are gone (the newer holder's put is
	// inline, in the manifest).
	if objs := stagedObjects(t, c.store, "d"); len(objs) != 0 {
		t.Fatalf("the stale job left staged objects: %v", objs)
	}
}

// lease break ends an exec --s3 job's writes within --check-every: from
// then on its client's writes get FenceLeaseLost, naming the lost lease,
// and nothing it wrote is published.
func TestExecS3StoppedByBreak(t *testing.T) {
	c := newCLI(t)
	refused := filepath.Join(c.dir, "refused")
	cmd, _, errb := c.startExec(append([]string{"exec", "d", "--ttl", "1h", "--check-every", "200ms", "--grace", "10s", "--s3", "--"},
		s3Job("ignore-term;put a mine;touch started;put-until-refused b "+refused)...)...)
	waitFile(t, filepath.Join(c.dir, "started"))
	c.want(0, "", "lease", "break", "d", "--holder", "ops")
	// The job exits 0 once refused, so exec either stops it for the lost
	// lease (5) or has its publish fenced by the break's token (3).
	code := exitStatus(t, cmd.Wait())
	if code != exitLost && code != exitFenced {
		t.Fatalf("exec --s3 after the break: exit %d, want %d or %d: %s", code, exitLost, exitFenced, errb)
	}
	got, err := os.ReadFile(refused)
	if err != nil {
		t.Fatalf("the job's puts were never refused: %v\n%s", err, errb)
	}
	if !strings.HasPrefix(string(got), s3gw.CodeLeaseLost+": ") || !strings.Contains(string(got), "lease") {
		t.Fatalf("the put after the break got %q, want %s naming the lease", got, s3gw.CodeLeaseLost)
	}
	if keys := c.keys("d"); len(keys) != 0 {
		t.Fatalf("a broken job published: %v", keys)
	}
}

// With --s3-commit each, every completed write is its own commit at
// once, so what the job wrote before it failed stays published; --json
// prints where the endpoint is as one JSON object on stderr.
func TestExecS3CommitEach(t *testing.T) {
	c := newCLI(t)
	self, _ := os.Executable()
	r := c.run("", "--json", "exec", "d", "--s3", "--s3-commit", "each", "--", "sh", "-c", `env `+envS3Steps+`="put a.csv one;put b.csv two;delete a.csv" "$0" && exit 1`, self)
	if r.code != 1 {
		t.Fatalf("exec --s3-commit each: %s", r)
	}
	line, _, _ := strings.Cut(r.stderr, "\n")
	var where struct {
		Endpoint string `json:"s3_endpoint"`
		Bucket   string `json:"bucket"`
		Prefix   string `json:"prefix"`
	}
	if err := json.Unmarshal([]byte(line), &where); err != nil || !strings.HasPrefix(where.Endpoint, "http://127.0.0.1:") || where.Bucket != "fence" || where.Prefix != "d/" {
		t.Fatalf("--json's first stderr line %q: %+v, %v", line, where, err)
	}
	keys := c.keys("d")
	if len(keys) != 1 || keys["b.csv"] == 0 {
		t.Fatalf("keys after a failed job with --s3-commit each: %v, want b.csv alone", keys)
	}
	// Flags that need --s3.
	c.want(exitUsage, "", "exec", "d", "--s3-tls", "--", "true")
	c.want(exitUsage, "", "exec", "d", "--s3", "--publish", "out", "--", "true")
	c.want(exitUsage, "", "exec", "d", "--s3", "--s3-commit", "sometimes", "--", "true")
}
