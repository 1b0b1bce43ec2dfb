package config

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore/s3store"
)

// The S3 servers deploy/local/servers.sh starts (with AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_REGION), and the MinIO executable, from
// which TestDoctorSSEServers starts a MinIO of its own with a KMS key.
const (
	minioEndpointEnv     = "FENCE_TEST_S3_ENDPOINT"
	versitygwEndpointEnv = "FENCE_TEST_S3_ENDPOINT_VERSITYGW"
	minioBinEnv          = "FENCE_TEST_MINIO_BIN"
)

// TestDoctorSSEServers: what doctor reports with sse=AES256 on each
// server, through both SDKs. MinIO without a KMS refuses the write
// (NotImplemented), so the conditional-write check is skipped; versitygw
// (POSIX) accepts it and reports the object unencrypted, which fails,
// and so does the test acquisition, whose lease record the capability
// probe refuses to write there; MinIO with a static KMS key
// (MINIO_KMS_SECRET_KEY) reports AES256.
func TestDoctorSSEServers(t *testing.T) {
	servers := []struct {
		name, env string
		want      []string
		detail    string
	}{
		{"minio", minioEndpointEnv, []string{"server-side encryption=fail", "conditional writes honoured=skip", "coordinator reachable=skip", "test acquisition and release=skip"}, "KMS is not configured"},
		{"versitygw", versitygwEndpointEnv, []string{"server-side encryption=fail", "conditional writes honoured=ok", "coordinator reachable=ok", "test acquisition and release=fail"}, "reports the object stored without encryption"},
		{"minio-kms", "", []string{"server-side encryption=ok", "conditional writes honoured=ok", "coordinator reachable=ok", "test acquisition and release=ok"}, "reported stored with AES256"},
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			var ep string
			if srv.env != "" {
				if ep = os.Getenv(srv.env); ep == "" {
					t.Skipf("%s is not set; bash deploy/local/test.sh starts the server and sets it", srv.env)
				}
			} else {
				ep = startMinIOWithKMS(t)
			}
			if os.Getenv("AWS_REGION") == "" {
				t.Setenv("AWS_REGION", "us-east-1")
			}
			for _, scheme := range []string{"s3", "minio"} {
				t.Run(scheme, func(t *testing.T) {
					bucket := testBucket(t, ep)
					url := "s3://" + bucket + "?endpoint=" + ep + "&path_style=true&sse=AES256"
					if scheme == "minio" {
						url = "minio://" + bucket + "?endpoint=" + ep + "&sse=AES256"
					}
					checks, err := Doctor(t.Context(), url, "", &DoctorOptions{Domain: "doctor/sse"})
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, c := range checks {
						if c.Name != "bucket policy requires conditional writes" { // s3:// only, and a warning
							got = append(got, c.Name+"="+string(c.Status))
						}
					}
					want := append([]string{"store reachable=ok", "bucket exists=ok"}, srv.want...)
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("checks:\n%s\nwant:\n%s\ndetails: %+v", strings.Join(got, "\n"), strings.Join(want, "\n"), checks)
					}
					if dt := checks[2].Detail; !strings.Contains(dt, srv.detail) {
						t.Fatalf("server-side encryption: %q, want it to say %q", dt, srv.detail)
					}
					if last := checks[len(checks)-1]; last.Status == StatusFail && !strings.Contains(last.Detail, "store ignores server-side encryption") {
						t.Fatalf("test acquisition failed with %q, want it to name the ignored encryption", last.Detail)
					}
					t.Logf("%s", checks[2].Detail)
				})
			}
		})
	}
}

// testBucket creates a fresh bucket at ep, removed (best effort) when t
// ends.
func testBucket(t *testing.T, ep string) string {
	t.Helper()
	var r [6]byte
	rand.Read(r[:])
	bucket := "fence-doctor-sse-" + hex.EncodeToString(r[:])
	b, err := s3store.Open(t.Context(), bucket, "", &s3store.Options{Endpoint: ep, PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	c, bk := b.Client(), aws.String(bucket)
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: bk}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for range 5 {
			out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: bk})
			if err != nil || len(out.Contents) == 0 {
				break
			}
			for _, o := range out.Contents {
				c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: bk, Key: o.Key})
			}
		}
		if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: bk}); err != nil {
			t.Logf("cleanup: delete bucket %s: %v", bucket, err)
		}
	})
	return bucket
}

// startMinIOWithKMS starts a MinIO of its own (FENCE_TEST_MINIO_BIN) with
// a static KMS key, so that it honours SSE-S3, on a free loopback port
// over a temporary directory, and stops it when t ends.
func startMinIOWithKMS(t *testing.T) string {
	t.Helper()
	bin := os.Getenv(minioBinEnv)
	if bin == "" {
		t.Skipf("%s is not set; bash deploy/local/test.sh sets it to the MinIO executable", minioBinEnv)
	}
	if os.Getenv("AWS_ACCESS_KEY_ID") == "" || os.Getenv("AWS_SECRET_ACCESS_KEY") == "" {
		t.Skip("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set (bash deploy/local/test.sh sets them)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var key [32]byte
	rand.Read(key[:])
	cmd := exec.Command(bin, "server", "--quiet", "--address", addr, "--console-address", "127.0.0.1:0", t.TempDir())
	cmd.Env = append(os.Environ(),
		"MINIO_ROOT_USER="+os.Getenv("AWS_ACCESS_KEY_ID"),
		"MINIO_ROOT_PASSWORD="+os.Getenv("AWS_SECRET_ACCESS_KEY"),
		"MINIO_BROWSER=off",
		"MINIO_KMS_SECRET_KEY=fence-test-key:"+base64.StdEncoding.EncodeToString(key[:]),
	)
	logPath := t.TempDir() + "/minio.log"
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	readLog := func() string { data, _ := os.ReadFile(logPath); return string(data) }
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("MinIO with a KMS key exited: %s", readLog())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("MinIO with a KMS key did not listen on %s within 60s: %s", addr, readLog())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
