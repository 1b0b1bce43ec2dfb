package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// failFastStores returns a store URL per scheme whose requests go to
// endpoint ("http://HOST:PORT" or "https://HOST:PORT").
func failFastStores(endpoint string) map[string]string {
	return map[string]string{
		"s3":     "s3://fence-ff?path_style=true&endpoint=" + endpoint,
		"minio":  "minio://fence-ff?endpoint=" + endpoint,
		"gs":     "gs://fence-ff?endpoint=" + endpoint,
		"azblob": "azblob://fence-ff?endpoint=" + endpoint + "/devstoreaccount1",
	}
}

// failFastCLI is a cli with credentials for every scheme (none of them
// valid anywhere) and none from the environment.
func failFastCLI(t *testing.T, store string) *cli {
	c := newCLI(t)
	c.store = store
	c.env = []string{
		"AWS_ACCESS_KEY_ID=fenceffkey", "AWS_SECRET_ACCESS_KEY=fenceffsecret", "AWS_REGION=us-east-1",
		"AWS_PROFILE=", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null",
		"AZURE_STORAGE_CONNECTION_STRING=", "AZURE_STORAGE_ACCOUNT=devstoreaccount1",
		"AZURE_STORAGE_KEY=" + "ZmVuY2UtZmFpbC1mYXN0LXRlc3Qta2V5", // base64, and no account's key
	}
	return c
}

// failFastCommands are the commands each case runs, a read and a lease,
// with the most connections each may open when no request is sent twice:
// ls reads the manifest; lease acquire also runs the capability probe
// beside that read, whose first round is 4 concurrent creates, the
// start of a multipart upload and the delete of its object (and
// minio-go asks for the bucket's location before each of them).
var failFastCommands = []struct {
	args     []string
	maxConns int64
}{
	{[]string{"ls", "reports/monthly"}, 1},
	// The probe's requests race the manifest read, and how many have
	// opened a connection when the first failure stops the rest varies:
	// 5 to 9 were seen. With the SDKs' retries left on it was 18 (s3) and
	// 24 (azblob); 12 leaves room for the race and none for a retry.
	{[]string{"lease", "acquire", "reports/monthly"}, 12},
}

// TestFailFastNothingListening: on every scheme, with nothing listening
// on the endpoint's port (one just closed), ls and lease acquire exit 1
// naming the endpoint and the refused connection. Neither fence nor the
// SDK retries it (the attempt counts are TestFailFastCountsAttempts');
// the seconds are logged, not asserted, on a shared machine.
func TestFailFastNothingListening(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + l.Addr().String()
	l.Close()
	for scheme, store := range failFastStores(endpoint) {
		t.Run(scheme, func(t *testing.T) {
			c := failFastCLI(t, store)
			for _, cmd := range failFastCommands {
				args := cmd.args
				start := time.Now()
				r := c.want(exitError, "", args...)
				took := time.Since(start)
				t.Logf("%s %s: %.2fs: %s", scheme, strings.Join(args, " "), took.Seconds(), r.stderr)
				if !strings.Contains(r.stderr, "cannot reach the store at "+endpoint) || !strings.Contains(r.stderr, "connection refused") {
					t.Errorf("%s: stderr does not name the endpoint %s and the refused connection: %q", strings.Join(args, " "), endpoint, r.stderr)
				}
				if strings.Count(r.stderr, "\n") != 1 {
					t.Errorf("%s: want one line, got %q", strings.Join(args, " "), r.stderr)
				}
				if took > 10*time.Second {
					// Not a failure: timing on a shared machine is no
					// test. TestFailFastCountsAttempts counts attempts.
					t.Logf("%s took %s, above the issue's 10s", strings.Join(args, " "), took)
				}
			}
		})
	}
}

// countingServer is a server that counts the connections it accepts and
// the requests it answers with answer.
type countingServer struct {
	*httptest.Server
	conns, requests atomic.Int64
	mu              sync.Mutex
	paths           []string // the requests answered, "METHOD PATH?QUERY"
}

// answered returns the requests answered so far, and forgets them.
func (s *countingServer) answered() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.paths
	s.paths = nil
	return p
}

func newCountingServer(t *testing.T, tls bool, answer http.HandlerFunc) *countingServer {
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.mu.Lock()
		s.paths = append(s.paths, r.Method+" "+r.URL.RequestURI())
		s.mu.Unlock()
		answer(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Config.ErrorLog = nil
	if tls {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	return s
}

// refuseCredentials answers every request as each service refuses a
// key it does not know: S3's InvalidAccessKeyId, GCS's 401 and Azure's
// AuthenticationFailed, all in their own formats.
func refuseCredentials(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Header.Get("x-ms-version") != "":
		w.Header().Set("x-ms-error-code", "AuthenticationFailed")
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code><Message>Server failed to authenticate the request.</Message></Error>`))
	case strings.Contains(r.URL.Path, "/storage/v1/") || strings.HasPrefix(r.URL.Path, "/fence-ff/") && r.Header.Get("Authorization") == "":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"code":401,"message":"Invalid Credentials","errors":[{"reason":"authError","message":"Invalid Credentials"}]}}`))
	default:
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`))
	}
}

// TestFailFastCountsAttempts: an https endpoint on a plain HTTP server,
// an http endpoint on a TLS server, and a server that refuses the
// credentials each get one connection per request on every scheme:
// neither fence nor the SDK retries what no retry can fix (with the
// retries, an ls took 3 to 4 connections per fence attempt, 11
// attempts). The error
// names the endpoint and the cause, in one line.
func TestFailFastCountsAttempts(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  bool // the server's
		url  func(s *countingServer) string
		want string
	}{
		{"https to plain HTTP", false, func(s *countingServer) string { return strings.Replace(s.URL, "http://", "https://", 1) }, "answered in plain HTTP"},
		{"http to TLS", true, func(s *countingServer) string { return strings.Replace(s.URL, "https://", "http://", 1) }, "https:// endpoint"},
		{"refused credentials", false, func(s *countingServer) string { return s.URL }, "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, scheme := range []string{"s3", "minio", "gs", "azblob"} {
				srv := newCountingServer(t, tc.tls, refuseCredentials)
				endpoint := tc.url(srv)
				c := failFastCLI(t, failFastStores(endpoint)[scheme])
				for _, cmd := range failFastCommands {
					args := cmd.args
					before := srv.conns.Load()
					start := time.Now()
					r := c.want(exitError, "", args...)
					took := time.Since(start)
					n := srv.conns.Load() - before
					t.Logf("%s %s: %d connections, requests %q, %.2fs: %s", scheme, strings.Join(args, " "), n, srv.answered(), took.Seconds(), r.stderr)
					max := cmd.maxConns
					if tc.tls {
						// Go's TLS server answers a plain request and
						// closes with the rest of it unread, which may
						// reset the connection before the answer is read;
						// a reset is worth retrying (a restarted server),
						// and the SDKs do, three times at most (seen once
						// in CI on a loaded machine: azblob's lease
						// acquire, 15 connections). The bug this test
						// guards against took 30 and more.
						max += 3
					}
					if n > max {
						t.Errorf("%s %s: %d connections, want at most %d: a retry of what no retry fixes", scheme, strings.Join(args, " "), n, max)
					}
					if !strings.Contains(r.stderr, endpoint) || !strings.Contains(r.stderr, tc.want) {
						t.Errorf("%s %s: stderr does not name %s and %q: %q", scheme, strings.Join(args, " "), endpoint, tc.want, r.stderr)
					}
					if strings.Count(r.stderr, "\n") != 1 {
						t.Errorf("%s %s: want one line, got %q", scheme, strings.Join(args, " "), r.stderr)
					}
				}
			}
		})
	}
}
