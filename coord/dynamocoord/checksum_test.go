package dynamocoord

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/internal/dynamotest"
)

// sdkLog collects what the SDK logs.
type sdkLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *sdkLog) option(o *dynamodb.Options) {
	o.Logger = logging.LoggerFunc(func(c logging.Classification, format string, v ...any) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.lines = append(l.lines, string(c)+" "+fmt.Sprintf(format, v...))
	})
}

func (l *sdkLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func setDummyCredentials(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "fencetest")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "fencetest")
	t.Setenv("AWS_SESSION_TOKEN", "")
}

// TestResponseCRC32: the client checks a reply's x-amz-crc32 when it has
// one, before the reply is decoded, and fails the call when it does not
// match; a reply without the header (DynamoDB Local's error replies) is
// taken as it is. Neither logs anything.
func TestResponseCRC32(t *testing.T) {
	setDummyCredentials(t)
	const item = `{"Item":{"domain":{"S":"d"},"token":{"N":"7"}}}`
	crc := func(s string) string { return strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(s))), 10) }
	for _, tc := range []struct {
		name   string
		status int
		body   string
		header string // x-amz-crc32; "" for none
		check  func(t *testing.T, st coord.State, err error)
	}{
		{"RightChecksum", 200, item, crc(item), func(t *testing.T, st coord.State, err error) {
			if err != nil || st.Token != 7 {
				t.Fatalf("State = %+v, %v; want token 7", st, err)
			}
		}},
		{"NoChecksum", 200, item, "", func(t *testing.T, st coord.State, err error) {
			if err != nil || st.Token != 7 {
				t.Fatalf("State = %+v, %v; want token 7", st, err)
			}
		}},
		// Token 7 arrives, but the checksum is that of token 8: the
		// reply was changed on the way, and its token must not be used.
		{"WrongChecksum", 200, item, crc(strings.Replace(item, "7", "8", 1)), func(t *testing.T, st coord.State, err error) {
			if err == nil || !strings.Contains(err.Error(), "corrupted") || st.Token != 0 {
				t.Fatalf("State = %+v, %v; want an error saying the reply was corrupted", st, err)
			}
			if classify(err) != ambiguous {
				t.Fatalf("a corrupted 200 reply is classified %v; want ambiguous (the write may have applied)", classify(err))
			}
		}},
		{"BadHeader", 200, item, "not-a-number", func(t *testing.T, st coord.State, err error) {
			if err == nil || !strings.Contains(err.Error(), "not a CRC32") {
				t.Fatalf("State = %+v, %v; want an error naming the bad header", st, err)
			}
		}},
		{"ErrorWithoutChecksum", 400, `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","Message":"Cannot do operations on a non-existent table"}`, "", func(t *testing.T, st coord.State, err error) {
			var rnf *types.ResourceNotFoundException
			if !errors.Is(err, ErrTableNotFound) || !errors.As(err, &rnf) {
				t.Fatalf("State = %+v, %v; want ErrTableNotFound with the SDK's error beneath", st, err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				if tc.header != "" {
					w.Header().Set("X-Amz-Crc32", tc.header)
				}
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}))
			defer srv.Close()
			var log sdkLog
			client, err := newClient(t.Context(), &OpenOptions{Endpoint: srv.URL, Region: "us-east-1"}, log.option, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
			if err != nil {
				t.Fatal(err)
			}
			st, err := mustNew(t, client, "fence-leases", nil).State(t.Context(), "d")
			tc.check(t, st, err)
			if s := log.String(); s != "" {
				t.Fatalf("the SDK logged:\n%s", s)
			}
		})
	}
}

// TestNoChecksumWarnings: against the real servers, replies that are
// errors (a missing table, a held lease's failed condition, a validation
// error) log nothing, and every successful reply carried the checksum, so
// it was checked.
func TestNoChecksumWarnings(t *testing.T) { dynamotest.Run(t, testNoChecksumWarnings) }

func testNoChecksumWarnings(t *testing.T, endpoint string) {
	testClient(t, endpoint) // sets dummy credentials if need be
	var log sdkLog
	var mu sync.Mutex
	replies := map[string]int{} // "2xx with checksum", "4xx without checksum", ...
	record := func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("record", func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleDeserialize(ctx, in)
				if resp, ok := out.RawResponse.(*smithyhttp.Response); ok {
					kind := fmt.Sprintf("%dxx ", resp.StatusCode/100)
					if resp.Header.Get("X-Amz-Crc32") == "" {
						kind += "without checksum"
					} else {
						kind += "with checksum"
					}
					mu.Lock()
					replies[kind]++
					mu.Unlock()
				}
				return out, md, err
			}), middleware.After)
		})
	}
	client, err := newClient(t.Context(), &OpenOptions{Endpoint: endpoint, Region: "us-east-1"}, log.option, record)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	c := mustNew(t, client, newTable(t, client), nil)
	if _, err := c.TryAcquire(ctx, coord.Request{Domain: "d", Holder: "A", TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	var held *coord.HeldError
	if _, err := c.TryAcquire(ctx, coord.Request{Domain: "d", Holder: "B", TTL: time.Minute}); !errors.As(err, &held) {
		t.Fatalf("TryAcquire by B: %v; want a HeldError", err)
	}
	if _, err := c.TryAcquire(ctx, coord.Request{Domain: strings.Repeat("d", 3000), Holder: "A", TTL: time.Minute}); !isValidation(err) {
		t.Fatalf("TryAcquire with a 3000-byte domain: %v; want a ValidationException", err)
	}
	if _, err := mustNew(t, client, tableName(), nil).State(ctx, "d"); !errors.Is(err, ErrTableNotFound) {
		t.Fatalf("State on a missing table: %v; want ErrTableNotFound", err)
	}
	if s := log.String(); s != "" {
		t.Fatalf("the SDK logged:\n%s", s)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("replies: %v", replies)
	if replies["2xx without checksum"] > 0 || replies["2xx with checksum"] == 0 {
		t.Fatalf("replies: %v; want every successful reply with a checksum", replies)
	}
	if replies["4xx with checksum"]+replies["4xx without checksum"] == 0 {
		t.Fatalf("replies: %v; want error replies too", replies)
	}
}
