package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
)

// wireRecord is the fault proxy's record of the writes that matter to the
// suite's checks, for a store that keeps no versions of its own (Azurite):
// every write of a manifest or a version object and every delete, with
// the server's answer (spec.WireWrite). It is shared by every route of
// the proxy process, so that one lock per domain covers them all.
type wireRecord struct {
	f *os.File

	mu    sync.Mutex // guards locks and writes to f
	locks map[string]*sync.Mutex
}

func openWireRecord(path string) (*wireRecord, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("wire record: %w", err)
	}
	return &wireRecord{f: f, locks: map[string]*sync.Mutex{}}, nil
}

// domainLock returns the lock of the domain whose objects sit under
// prefix (the path up to "/_fence/").
func (w *wireRecord) domainLock(prefix string) *sync.Mutex {
	w.mu.Lock()
	defer w.mu.Unlock()
	l, ok := w.locks[prefix]
	if !ok {
		l = &sync.Mutex{}
		w.locks[prefix] = l
	}
	return l
}

// wireTarget reports whether r is a write the record keeps, and the path
// of its domain: a Put Blob or Put Block List (never the staging of a
// block, which writes no blob) of a manifest or a version object, or a
// delete of either. Paths are Azure's: /ACCOUNT/CONTAINER/DOMAIN/_fence/...
func wireTarget(r *http.Request) (domain string, manifest, ok bool) {
	i := strings.Index(r.URL.Path, "/_fence/")
	if i < 0 {
		return "", false, false
	}
	rest := r.URL.Path[i+len("/_fence/"):]
	manifest = rest == "manifest.json"
	if !manifest && !strings.HasPrefix(rest, "v/") {
		return "", false, false
	}
	switch r.Method {
	case http.MethodDelete:
	case http.MethodPut:
		if comp := r.URL.Query().Get("comp"); comp != "" && comp != "blocklist" {
			return "", false, false
		}
	default:
		return "", false, false
	}
	return r.URL.Path[:i], manifest, true
}

// roundTrip sends out (a copy of r for the server) and records it with
// the server's answer. It reads the request's body before taking the
// domain's lock (a client stopped mid-body stalls only itself), holds the
// lock while the server answers, so that the domain's recorded writes
// reach the server one at a time and At orders them as the server
// applied them, and waits for the answer even if the client has gone:
// the record must say what the server did.
func (w *wireRecord) roundTrip(client *http.Client, route string, r, out *http.Request, domain string, manifest bool) (*http.Response, error) {
	var body []byte
	if out.Body != nil && out.Body != http.NoBody {
		var err error
		if body, err = io.ReadAll(out.Body); err != nil {
			return nil, err // nothing was sent
		}
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.ContentLength, out.TransferEncoding = int64(len(body)), nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(out.Context()), time.Minute)
	defer cancel()
	out = out.WithContext(ctx)

	l := w.domainLock(domain)
	l.Lock()
	defer l.Unlock()
	resp, err := client.Do(out)
	var answer []byte
	if err == nil {
		answer, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	rec := spec.WireWrite{
		At: hist.Now(), Route: route, Method: r.Method, Path: r.URL.Path, Comp: r.URL.Query().Get("comp"),
		IfMatch: r.Header.Get("If-Match"), IfNoneMatch: r.Header.Get("If-None-Match"),
	}
	if err != nil {
		rec.Err = err.Error()
	} else {
		rec.Status, rec.ETag = resp.StatusCode, resp.Header.Get("ETag")
		if manifest && resp.StatusCode/100 == 2 {
			rec.Body = body
		}
	}
	w.append(rec)
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	return resp, nil
}

// append writes rec as one line. A record that cannot be written would
// make the checks judge an incomplete record, so the proxy exits instead,
// which fails the run.
func (w *wireRecord) append(rec spec.WireWrite) {
	line, err := json.Marshal(rec)
	if err == nil {
		w.mu.Lock()
		_, err = w.f.Write(append(line, '\n'))
		w.mu.Unlock()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "faultbin proxy: the wire record could not be written, so the run's checks would judge an incomplete record: %v\n", err)
		os.Exit(3)
	}
}
