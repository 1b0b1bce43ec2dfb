package clients

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// memRun is a run over a map, for testing checkStored.
type memRun struct{ objects map[string][]byte }

func (m *memRun) prefix() string { return "gw/mem/" }
func (m *memRun) command(context.Context, []string, []string) *exec.Cmd {
	panic("memRun runs no command")
}
func (m *memRun) read(_ context.Context, key string) ([]byte, error) {
	b, ok := m.objects[key]
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, errNotFound)
	}
	return b, nil
}
func (m *memRun) keys(context.Context) ([]string, error) {
	return slices.Sorted(maps.Keys(m.objects)), nil
}

// storedRight returns what a scenario that held leaves, from src.
func storedRight(t *testing.T, src, prefix string) map[string][]byte {
	objects := map[string][]byte{}
	for name, from := range expected() {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(from)))
		if err != nil {
			t.Fatal(err)
		}
		objects[prefix+name] = b
	}
	return objects
}

// TestCheckStored shows that checkStored passes what a scenario that held
// leaves, and names each way a target could store it wrong.
func TestCheckStored(t *testing.T) {
	src := sources(t)
	chunked := func(b []byte) []byte {
		return fmt.Appendf(nil, "%x;chunk-signature=%064d\r\n%s\r\n0;chunk-signature=%064d\r\n\r\n", len(b), 0, b, 0)
	}
	trailer := func(b []byte) []byte {
		return fmt.Appendf(nil, "%x\r\n%s\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n", len(b), b)
	}
	for _, tc := range []struct {
		name   string
		change func(o map[string][]byte)
		want   string // in the problems; "" for none
	}{
		{"right", func(map[string][]byte) {}, ""},
		{"signed chunks stored", func(o map[string][]byte) { o["gw/mem/big.bin"] = chunked(o["gw/mem/big.bin"]) }, `gw/mem/big.bin holds aws-chunked framing (";chunk-signature=")`},
		{"trailer stored", func(o map[string][]byte) { o["gw/mem/small.bin"] = trailer(o["gw/mem/small.bin"]) }, `gw/mem/small.bin holds aws-chunked framing ("x-amz-checksum-")`},
		{"last chunk stored", func(o map[string][]byte) { o["gw/mem/list/2"] = append(o["gw/mem/list/2"], "\r\n0\r\n\r\n"...) }, `gw/mem/list/2 holds aws-chunked framing ("\r\n0\r\n" in the last 256 bytes)`},
		{"copy wrong", func(o map[string][]byte) { o["gw/mem/copy.bin"] = o["gw/mem/list/0"] }, "gw/mem/copy.bin: 100 bytes with SHA-256"},
		{"one byte off", func(o map[string][]byte) {
			b := slices.Clone(o["gw/mem/big.bin"])
			b[len(b)/2] ^= 1
			o["gw/mem/big.bin"] = b
		}, "gw/mem/big.bin: 42991616 bytes with SHA-256"},
		{"missing", func(o map[string][]byte) { delete(o, "gw/mem/list/3") }, "reading gw/mem/list/3: gw/mem/list/3: no such key"},
		{"gone.bin left", func(o map[string][]byte) { o["gw/mem/gone.bin"] = o["gw/mem/small.bin"] }, "gw/mem/gone.bin holds 1024 bytes; the scenario deleted it"},
		{"extra key", func(o map[string][]byte) { o["gw/mem/list/5"] = []byte("x") }, "gw/mem/list/5 is stored; the scenario leaves no such key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &memRun{objects: storedRight(t, src, "gw/mem/")}
			tc.change(r.objects)
			problems := strings.Join(checkStored(context.Background(), r, src), "\n")
			if tc.want == "" && problems != "" {
				t.Fatalf("problems with what a scenario that held stores:\n%s", problems)
			}
			if !strings.Contains(problems, tc.want) {
				t.Fatalf("problems:\n%s\nwant one containing %q", problems, tc.want)
			}
		})
	}
}

// TestContractEnviron shows that a scenario's environment holds the
// contract and none of the machine's CA bundles or endpoints: over HTTP
// no bundle at all, over HTTPS the endpoint's for both AWS_CA_BUNDLE and
// NODE_EXTRA_CA_CERTS.
func TestContractEnviron(t *testing.T) {
	t.Setenv("AWS_CA_BUNDLE", "/etc/machine-bundle.pem")
	t.Setenv("SSL_CERT_FILE", "/etc/machine-bundle.pem")
	t.Setenv("REQUESTS_CA_BUNDLE", "/etc/machine-bundle.pem")
	t.Setenv("AWS_ENDPOINT_URL", "http://elsewhere")
	t.Setenv("AWS_PROFILE", "machine")
	c := contract{Endpoint: "http://127.0.0.1:9000", AccessKey: "k", SecretKey: "s", Region: "us-east-1", Bucket: "b", Prefix: "gw/x/"}
	lookup := func(env []string, name string) (string, int) {
		v, n := "", 0
		for _, kv := range env {
			if k, val, _ := strings.Cut(kv, "="); k == name {
				v, n = val, n+1
			}
		}
		return v, n
	}
	env := c.environ([]string{"FENCE_S3_SRC=/src"})
	for name, want := range map[string]string{
		"AWS_ENDPOINT_URL": "http://127.0.0.1:9000", "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000",
		"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s", "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1",
		"FENCE_S3_BUCKET": "b", "FENCE_S3_PREFIX": "gw/x/", "FENCE_S3_SRC": "/src",
	} {
		if got, n := lookup(env, name); n != 1 || got != want {
			t.Errorf("http: %s is set %d times, to %q; want once, to %q", name, n, got, want)
		}
	}
	for _, name := range []string{"AWS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "AWS_PROFILE"} {
		if got, n := lookup(env, name); n != 0 {
			t.Errorf("http: %s=%q is set; want it unset", name, got)
		}
	}
	c.Endpoint, c.CABundle = "https://127.0.0.1:9000", "/tmp/gw-ca.pem"
	env = c.environ(nil)
	for _, name := range []string{"AWS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"} {
		if got, n := lookup(env, name); n != 1 || got != "/tmp/gw-ca.pem" {
			t.Errorf("https: %s is set %d times, to %q; want once, to the endpoint's bundle", name, n, got)
		}
	}
}
