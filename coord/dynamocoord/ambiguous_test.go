package dynamocoord

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/coordtest"
)

// fakeAPI is a scripted double of itemAPI holding one item. It does not
// evaluate expressions: each UpdateItem call runs the next step of the
// script, which may apply the update (as DynamoDB would have) and then
// fail anyway, as when a reply is lost.
type fakeAPI struct {
	mu      sync.Mutex
	item    map[string]types.AttributeValue
	steps   []step
	updates int
	gets    int
	// describe, when set, answers DescribeTable.
	describe func() (*dynamodb.DescribeTableOutput, error)
}

// step is one scripted UpdateItem outcome: apply writes the update into
// the item; err is returned instead of the reply.
type step struct {
	apply bool
	err   error
}

func (f *fakeAPI) UpdateItem(_ context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.updates++
	if len(f.steps) == 0 {
		return nil, errors.New("fakeAPI: unscripted UpdateItem")
	}
	s := f.steps[0]
	f.steps = f.steps[1:]
	if s.apply {
		f.apply(in)
	}
	if s.err != nil {
		return nil, s.err
	}
	return &dynamodb.UpdateItemOutput{Attributes: f.item}, nil
}

// apply performs the SET and REMOVE clauses our updates use, ignoring the
// condition.
func (f *fakeAPI) apply(in *dynamodb.UpdateItemInput) {
	v := in.ExpressionAttributeValues
	next := make(map[string]types.AttributeValue)
	for k, av := range f.item {
		next[k] = av
	}
	next[attrDomain] = in.Key[attrDomain]
	next[attrAttempt] = v[":attempt"]
	switch expr := *in.UpdateExpression; {
	case strings.Contains(expr, "#holder = :me"): // acquire
		if n, ok := v[":next"]; ok {
			next[attrToken] = n
		} else {
			cur := uint64(0)
			if it, err := decodeItem("t", "d", f.item); err == nil {
				cur = it.Token
			}
			next[attrToken] = num(cur + 1)
		}
		next[attrHolder], next[attrExpires] = v[":me"], v[":exp"]
	case strings.Contains(expr, "REMOVE"): // release
		delete(next, attrHolder)
		delete(next, attrExpires)
	default: // renew
		next[attrExpires] = v[":exp"]
	}
	f.item = next
}

func (f *fakeAPI) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	return &dynamodb.GetItemOutput{Item: f.item}, nil
}

func (f *fakeAPI) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	if f.describe != nil {
		return f.describe()
	}
	return nil, errors.New("fakeAPI: DescribeTable not scripted")
}

func (f *fakeAPI) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return nil, errors.New("fakeAPI: DescribeTimeToLive not scripted")
}

// Errors as the SDK returns them, after its own retries.
var (
	errTimeout = &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "UpdateItem",
		Err: &net.OpError{Op: "read", Net: "tcp", Err: errors.New("i/o timeout")}}
	err500 = &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "UpdateItem",
		Err: httpError(500, &types.InternalServerError{Message: aws.String("internal error")})}
	errCondition = &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "UpdateItem",
		Err: httpError(400, &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")})}
	errThrottled = &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "UpdateItem",
		Err: httpError(400, &types.ProvisionedThroughputExceededException{Message: aws.String("slow down")})}
	errDenied = &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "UpdateItem",
		Err: httpError(400, &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "no"})}
)

func httpError(status int, err error) error {
	return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
		Err:      err,
	}}
}

func newFake(t *testing.T, steps ...step) (*fakeAPI, *Driver) {
	t.Helper()
	f := &fakeAPI{steps: steps}
	c := newDriver(f, "fence-leases", &Options{Clock: coordtest.NewFakeClock(coordtest.FakeStart)})
	return f, c
}

func request() coord.Request {
	return coord.Request{Domain: "d", Holder: "A", TTL: 10 * time.Second}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want kind
	}{
		{"timeout", errTimeout, ambiguous},
		{"500", err500, ambiguous},
		{"deadline", context.DeadlineExceeded, ambiguous},
		{"condition", errCondition, conditionFailed},
		{"throttled", errThrottled, retryable},
		{"denied", errDenied, final},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("classify(%s) = %d; want %d", tc.name, got, tc.want)
		}
	}
}

// TestAcquireLostReplyApplied: the update applied but its reply was lost;
// the read-back finds our attempt id and reports the lease.
func TestAcquireLostReplyApplied(t *testing.T) {
	for _, cause := range []error{errTimeout, err500} {
		f, c := newFake(t, step{apply: true, err: cause})
		l, err := c.TryAcquire(t.Context(), request())
		if err != nil {
			t.Fatalf("TryAcquire after a lost reply (%v): %v; want success", cause, err)
		}
		if l.Token != 1 || l.Holder != "A" || !l.Expires.Equal(coordtest.FakeStart.Add(10*time.Second)) {
			t.Fatalf("TryAcquire = %+v; want token 1 held by A until now+10s", l)
		}
		if f.updates != 1 || f.gets != 1 {
			t.Fatalf("%d updates and %d reads; want 1 and 1", f.updates, f.gets)
		}
	}
}

// TestAcquireLostReplyNotApplied: the update failed ambiguously and did
// not apply; the read-back shows a free lease, and the retry wins.
func TestAcquireLostReplyNotApplied(t *testing.T) {
	f, c := newFake(t, step{err: errTimeout}, step{apply: true})
	l, err := c.TryAcquire(t.Context(), request())
	if err != nil || l.Token != 1 {
		t.Fatalf("TryAcquire = %+v, %v; want token 1", l, err)
	}
	if f.updates != 2 {
		t.Fatalf("%d updates; want 2", f.updates)
	}
}

// TestAcquireConditionFailsOnOwnWrite: an SDK-level retry of an applied update
// meets a failed condition (here: the lease looks held); the read finds
// our attempt id, so the acquisition succeeded.
func TestAcquireConditionFailsOnOwnWrite(t *testing.T) {
	_, c := newFake(t, step{apply: true, err: errCondition})
	l, err := c.TryAcquire(t.Context(), request())
	if err != nil || l.Token != 1 || l.Holder != "A" {
		t.Fatalf("TryAcquire = %+v, %v; want token 1 held by A", l, err)
	}
}

// TestAcquireOutcomeUnknown: every update fails ambiguously until the
// deadline; the error says the outcome is unknown, not that it failed.
func TestAcquireOutcomeUnknown(t *testing.T) {
	steps := make([]step, 1000)
	for i := range steps {
		steps[i] = step{err: err500}
	}
	_, c := newFake(t, steps...)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err := c.TryAcquire(ctx, request())
	if !errors.Is(err, coord.ErrOutcomeUnknown) {
		t.Fatalf("TryAcquire = %v; want an error saying the outcome is unknown", err)
	}
	var ise *types.InternalServerError
	if !errors.As(err, &ise) {
		t.Fatalf("TryAcquire = %v; want the SDK error reachable with errors.As", err)
	}
}

// TestAcquireFinalError: a refusal (4xx) is reported at once, not retried.
func TestAcquireFinalError(t *testing.T) {
	f, c := newFake(t, step{err: errDenied})
	_, err := c.TryAcquire(t.Context(), request())
	if err == nil || errors.Is(err, coord.ErrOutcomeUnknown) || f.updates != 1 {
		t.Fatalf("TryAcquire = %v after %d updates; want the refusal after 1", err, f.updates)
	}
}

// TestAcquireThrottled: throttling is retried.
func TestAcquireThrottled(t *testing.T) {
	_, c := newFake(t, step{err: errThrottled}, step{err: errThrottled}, step{apply: true})
	if l, err := c.TryAcquire(t.Context(), request()); err != nil || l.Token != 1 {
		t.Fatalf("TryAcquire = %+v, %v; want token 1", l, err)
	}
}

// TestReleaseLostReply: the release applied but its reply was lost; the
// retry's condition fails, and the read finds our attempt id.
func TestReleaseLostReply(t *testing.T) {
	f, c := newFake(t, step{apply: true}, step{apply: true, err: errTimeout}, step{err: errCondition})
	l, err := c.TryAcquire(t.Context(), request())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Release(t.Context(), l); err != nil {
		t.Fatalf("Release after a lost reply: %v; want success", err)
	}
	st, err := c.State(t.Context(), "d")
	if err != nil || st.Holder != "" || st.Token != l.Token {
		t.Fatalf("State = %+v, %v; want released with token %d", st, err, l.Token)
	}
	if f.updates != 3 {
		t.Fatalf("%d updates; want 3", f.updates)
	}
}

// TestRenewLostReply: the renewal applied and its retry succeeds too.
func TestRenewLostReply(t *testing.T) {
	_, c := newFake(t, step{apply: true}, step{apply: true, err: err500}, step{apply: true})
	l, err := c.TryAcquire(t.Context(), request())
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Renew(t.Context(), l, 20*time.Second)
	if err != nil || r.Token != l.Token || !r.Expires.Equal(coordtest.FakeStart.Add(20*time.Second)) {
		t.Fatalf("Renew = %+v, %v; want token %d until now+20s", r, err, l.Token)
	}
}

// TestReleaseLostToTakeover: the condition fails and the read shows
// another holder: ErrLeaseLost naming it.
func TestReleaseLostToTakeover(t *testing.T) {
	f, c := newFake(t, step{apply: true}, step{err: errCondition})
	l, err := c.TryAcquire(t.Context(), request())
	if err != nil {
		t.Fatal(err)
	}
	f.item[attrHolder], f.item[attrToken], f.item[attrAttempt] = str("B"), num(l.Token+1), str("other")
	err = c.Release(t.Context(), l)
	if !errors.Is(err, coord.ErrLeaseLost) || !strings.Contains(err.Error(), `"B"`) {
		t.Fatalf("Release = %v; want ErrLeaseLost naming B", err)
	}
}
