package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/azblobstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/gcsstore"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
)

// childEnv is the environment variable that makes a process a bench
// child: it holds a JSON childSpec. Any binary that links this package
// serves it before main runs (see init), so the memory case can re-exec
// its own executable, be it the fence CLI or a test binary, and the
// process case the fence binary it measures.
const childEnv = "FENCE_BENCH_CHILD"

// The child operations.
const (
	// childPut and childGet stream Size bytes through a Store (Fenced)
	// or the backend's own Put and Get: the memory case.
	childPut = "put"
	childGet = "get"
	// childPlainPut makes one plain SDK put of File's bytes to Key: the
	// plain side of the process case.
	childPlainPut = "plainput"
	// childFloorPut reads Domain's manifest with one plain SDK GET and
	// writes as many bytes to Key with one conditional put (If-Match on
	// ETag, or create when ETag is ""): the floor of the process case.
	childFloorPut = "floorput"
)

// childSpec tells a child what to do.
type childSpec struct {
	Op      string      `json:"op"`
	Fenced  bool        `json:"fenced"`
	Backend backendSpec `json:"backend"`
	Domain  string      `json:"domain,omitempty"` // fenced
	Key     string      `json:"key"`
	Size    int64       `json:"size"`
	// Store options that survive the trip.
	UploadParallelism int   `json:"upload_parallelism"`
	SkipProbe         bool  `json:"skip_probe,omitempty"`
	InlineMax         int64 `json:"inline_max,omitempty"`
	InlineBudget      int64 `json:"inline_budget,omitempty"`
	// File is the body of a plain put; ETag the condition of a floor put.
	File string `json:"file,omitempty"`
	ETag string `json:"etag,omitempty"`
	// PartBufferBytes is the Store's, for a gateway child.
	PartBufferBytes int64 `json:"part_buffer_bytes,omitempty"`
	// Gateway says what a gateway child serves.
	Gateway *gatewaySpec `json:"gateway,omitempty"`
}

// backendSpec says how a child reopens the parent's backend. Credentials
// come from the environment the child inherits, as the parent's did.
type backendSpec struct {
	Kind      string `json:"kind"` // "s3", "minio", "gs", "azblob" or "file"
	Endpoint  string `json:"endpoint,omitempty"`
	Region    string `json:"region,omitempty"`
	PathStyle bool   `json:"path_style,omitempty"`
	Bucket    string `json:"bucket,omitempty"`
	Prefix    string `json:"prefix,omitempty"`
	Dir       string `json:"dir,omitempty"`
}

// childResult is the one line a child prints on stdout.
type childResult struct {
	PeakRSS int64         `json:"peak_rss"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Bytes   int64         `json:"bytes"`
	// ETag is the ETag a floor put left.
	ETag string `json:"etag,omitempty"`
	// URL and StartRSS are a gateway child's endpoint and its resident
	// memory once serving, on its first line; Served is how long it
	// served, on its last.
	URL      string        `json:"url,omitempty"`
	StartRSS int64         `json:"start_rss,omitempty"`
	Served   time.Duration `json:"served_ns,omitempty"`
	// ServingRSS is a gateway child's answer to markServing.
	ServingRSS int64  `json:"serving_rss,omitempty"`
	Error      string `json:"error,omitempty"`
}

// specFor describes b for a child, or says why a child cannot reopen it.
func specFor(b driver.Backend) (backendSpec, error) {
	switch b := b.(type) {
	case *s3store.Backend:
		o := b.Client().Options()
		return backendSpec{Kind: "s3", Endpoint: aws.ToString(o.BaseEndpoint), Region: o.Region, PathStyle: o.UsePathStyle, Bucket: b.Bucket(), Prefix: b.Prefix()}, nil
	case *miniostore.Backend:
		u := *b.Client().EndpointURL()
		u.User = nil
		return backendSpec{Kind: "minio", Endpoint: u.Scheme + "://" + u.Host, Bucket: b.Bucket(), Prefix: b.Prefix()}, nil
	case *gcsstore.Backend:
		return backendSpec{Kind: "gs", Endpoint: b.Endpoint(), Bucket: b.Bucket(), Prefix: b.Prefix()}, nil
	case *azblobstore.Backend:
		return backendSpec{Kind: "azblob", Endpoint: b.Endpoint(), Bucket: b.Container(), Prefix: b.Prefix()}, nil
	case *filestore.Backend:
		return backendSpec{Kind: "file", Dir: b.Dir()}, nil
	}
	return backendSpec{}, fmt.Errorf("a %T cannot be reopened in a child process", b)
}

func (s backendSpec) open(ctx context.Context) (driver.Backend, error) {
	switch s.Kind {
	case "s3":
		return s3store.Open(ctx, s.Bucket, s.Prefix, &s3store.Options{Endpoint: s.Endpoint, Region: s.Region, PathStyle: s.PathStyle})
	case "minio":
		return miniostore.Open(s.Endpoint, s.Bucket, s.Prefix, nil)
	case "gs":
		return gcsstore.Open(ctx, s.Bucket, s.Prefix, &gcsstore.Options{Endpoint: s.Endpoint})
	case "azblob":
		return azblobstore.Open(ctx, s.Bucket, s.Prefix, &azblobstore.Options{Endpoint: s.Endpoint})
	case "file":
		return filestore.Open(s.Dir)
	}
	return nil, fmt.Errorf("bench: child: unknown backend kind %q", s.Kind)
}

func init() {
	if spec, ok := os.LookupEnv(childEnv); ok {
		os.Exit(serveChild(spec, os.Stdout))
	}
}

// serveChild runs the child spec describes and prints its result.
// It returns the exit code.
func serveChild(spec string, out io.Writer) int {
	res, err := runChild(spec)
	if err != nil {
		res.Error = err.Error()
	}
	line, _ := json.Marshal(res)
	fmt.Fprintf(out, "%s\n", line)
	if err != nil {
		return 1
	}
	return 0
}

func runChild(specJSON string) (childResult, error) {
	var spec childSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return childResult{}, fmt.Errorf("bench: child: bad %s: %w", childEnv, err)
	}
	ctx := context.Background()
	b, err := spec.Backend.open(ctx)
	if err != nil {
		return childResult{}, err
	}
	defer b.Close()
	switch spec.Op {
	case childPlainPut, childFloorPut:
		return runProcessChild(ctx, spec, b)
	case childCommitReceipts:
		return runReceiptsChild(ctx, spec, b)
	case childGateway:
		return runGatewayChild(ctx, spec, b, os.Stdout, os.Stdin)
	}
	start := time.Now()
	var n int64
	switch {
	case spec.Op == childPut && spec.Fenced:
		s := objstore.New(b, &objstore.Options{UploadParallelism: spec.UploadParallelism, SkipProbe: spec.SkipProbe})
		var c objstore.CommitResult
		c, err = s.Put(ctx, spec.Domain, spec.Key, token, newStream(spec.Size), spec.Size)
		if err == nil && len(c.Versions) == 1 {
			n = c.Versions[0].Size
		}
	case spec.Op == childPut:
		var info driver.ObjectInfo
		info, err = b.Put(ctx, spec.Key, newStream(spec.Size), spec.Size, driver.PutOptions{})
		n = info.Size
	case spec.Op == childGet && spec.Fenced:
		s := objstore.New(b, nil)
		var rd *objstore.Reader
		if rd, err = s.Get(ctx, spec.Domain, spec.Key); err == nil {
			n, err = io.Copy(io.Discard, rd)
			rd.Close()
		}
	case spec.Op == childGet:
		var rc io.ReadCloser
		if rc, _, err = b.Get(ctx, spec.Key, driver.GetOptions{}); err == nil {
			n, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
	default:
		err = fmt.Errorf("bench: child: unknown op %q", spec.Op)
	}
	res := childResult{Elapsed: time.Since(start), Bytes: n}
	if err != nil {
		return res, err
	}
	if n != spec.Size {
		return res, fmt.Errorf("bench: child: %s moved %d bytes, want %d", spec.Op, n, spec.Size)
	}
	res.PeakRSS, err = peakRSS()
	return res, err
}

// runProcessChild makes the plain calls of a process-case child through
// the backend's own SDK client, as plainFor gives it.
func runProcessChild(ctx context.Context, spec childSpec, b driver.Backend) (childResult, error) {
	p := plainFor(b)
	start := time.Now()
	var res childResult
	switch spec.Op {
	case childPlainPut:
		data, err := os.ReadFile(spec.File)
		if err != nil {
			return res, fmt.Errorf("bench: child: %w", err)
		}
		if err := p.put(ctx, spec.Key, data); err != nil {
			return res, err
		}
		res.Bytes = int64(len(data))
	case childFloorPut:
		n, err := p.get(ctx, format.ManifestKey(spec.Domain))
		if err != nil {
			return res, err
		}
		var data payloads
		if res.ETag, err = p.putIfMatch(ctx, spec.Key, data.get(n), spec.ETag); err != nil {
			return res, err
		}
		res.Bytes = n
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// peakRSS returns this process's peak resident set size, VmHWM.
func peakRSS() (int64, error) { return procStatus("VmHWM:", "peak RSS") }

// residentRSS returns this process's resident set size now, VmRSS.
func residentRSS() (int64, error) { return procStatus("VmRSS:", "resident memory") }

// procStatus returns the figure of field in /proc/self/status, in bytes;
// what names it in errors.
func procStatus(field, what string) (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("bench: %s: %w", what, err)
	}
	n := procKiB(data, field)
	if n == 0 {
		return 0, fmt.Errorf("bench: %s: no %s in /proc/self/status", what, strings.TrimSuffix(field, ":"))
	}
	return n, nil
}

// procKiB returns the value of field (such as "VmHWM:") in a /proc file
// whose values are "<n> kB", in bytes, or 0.
func procKiB(data []byte, field string) int64 {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0
		}
		return n * KiB
	}
	return 0
}
