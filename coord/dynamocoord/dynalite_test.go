package dynamocoord

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/coordtest"
	"github.com/fencedstore/fence/internal/dynamotest"
)

// testClient returns a client for endpoint, one of the servers
// dynamotest.Run names (dynalite, DynamoDB Local). Region us-east-1; dummy
// credentials unless the environment has some (both servers accept any
// whose access key id has only letters and digits).
func testClient(t *testing.T, endpoint string) *dynamodb.Client {
	t.Helper()
	if os.Getenv("AWS_ACCESS_KEY_ID") == "" || os.Getenv("AWS_SECRET_ACCESS_KEY") == "" {
		t.Setenv("AWS_ACCESS_KEY_ID", "fencetest")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "fence-test")
		t.Setenv("AWS_SESSION_TOKEN", "")
	}
	client, err := NewClient(t.Context(), &OpenOptions{Endpoint: endpoint, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// tableName returns a fresh table name.
func tableName() string { return "fence-test-" + strings.ToLower(rand.Text()[:12]) }

// newTable creates a fresh lease table, deleted when t ends.
func newTable(t *testing.T, client *dynamodb.Client) string {
	t.Helper()
	table := tableName()
	if err := CreateTable(testCtx(t), client, table); err != nil {
		t.Fatalf("CreateTable(%q): %v", table, err)
	}
	deleteOnCleanup(t, client, table)
	return table
}

// deleteOnCleanup deletes table when t ends, waiting for it to finish
// being created if need be.
func deleteOnCleanup(t *testing.T, client *dynamodb.Client, table string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for {
			_, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
			var inUse *types.ResourceInUseException
			switch {
			case err == nil || isNotFound(err):
				return
			case errors.As(err, &inUse) && ctx.Err() == nil:
				time.Sleep(50 * time.Millisecond)
			default:
				t.Errorf("delete table %q: %v", table, err)
				return
			}
		}
	})
}

// waitCreated waits until table, created directly, is ACTIVE.
func waitCreated(t *testing.T, client *dynamodb.Client, table string) {
	t.Helper()
	w := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, time.Second
	})
	if err := w.Wait(testCtx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)}, 30*time.Second); err != nil {
		t.Fatalf("table %q did not become ACTIVE: %v", table, err)
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestConformance(t *testing.T) { dynamotest.Run(t, testConformance) }

func testConformance(t *testing.T, endpoint string) {
	client := testClient(t, endpoint)
	coordtest.Run(t, func(t *testing.T, clk coord.Clock) coord.Driver {
		return mustNew(t, client, newTable(t, client), &Options{Clock: clk})
	}, &coordtest.Options{
		// An operator's destructive reset: delete the item behind the
		// coordinator's back (the coordinator itself never does).
		Wipe: func(t *testing.T, d coord.Driver, domain string) {
			_, err := client.DeleteItem(testCtx(t), &dynamodb.DeleteItemInput{
				TableName: aws.String(d.(*Driver).Table()),
				Key:       key(domain),
			})
			if err != nil {
				t.Fatalf("wipe %q: %v", domain, err)
			}
		},
	})
}

func TestMissingTable(t *testing.T) { dynamotest.Run(t, testMissingTable) }

func testMissingTable(t *testing.T, endpoint string) {
	client := testClient(t, endpoint)
	table := tableName()
	c := mustNew(t, client, table, nil)
	ctx := testCtx(t)
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrTableNotFound) {
			t.Fatalf("%s on a missing table: %v; want ErrTableNotFound", what, err)
		}
		var rnf *types.ResourceNotFoundException
		if !errors.As(err, &rnf) {
			t.Fatalf("%s: %v; want the SDK's ResourceNotFoundException beneath", what, err)
		}
		for _, want := range []string{table, "fence init"} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("%s: error %q does not mention %q", what, err, want)
			}
		}
	}
	_, err := c.TryAcquire(ctx, coord.Request{Domain: "d", Holder: "A", TTL: time.Second})
	check("TryAcquire", err)
	_, err = c.State(ctx, "d")
	check("State", err)
	l := coord.Lease{Domain: "d", Holder: "A", Token: 1}
	_, err = c.Renew(ctx, l, time.Second)
	check("Renew", err)
	check("Release", c.Release(ctx, l))
	check("CheckTable", c.CheckTable(ctx))
}

// TestWrongSchema: a table whose key is not KeySchema is reported as
// ErrWrongSchema by every call, naming the key it has. The item calls
// are refused with a ValidationException in words that differ between
// dynalite and DynamoDB Local; the table's description decides, and
// without it (a role that may not call DescribeTable) the words do.
func TestWrongSchema(t *testing.T) { dynamotest.Run(t, testWrongSchema) }

func testWrongSchema(t *testing.T, endpoint string) {
	client := testClient(t, endpoint)
	for _, tc := range []struct {
		name string
		in   dynamodb.CreateTableInput
		have string // how the error describes the table's key
	}{
		{"OtherKey", dynamodb.CreateTableInput{
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		}, `has partition key "id" of type S;`},
		{"NumberKey", dynamodb.CreateTableInput{
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("domain"), AttributeType: types.ScalarAttributeTypeN}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("domain"), KeyType: types.KeyTypeHash}},
		}, `has partition key "domain" of type N;`},
		{"SortKey", dynamodb.CreateTableInput{
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String("domain"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			},
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("domain"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
			},
		}, `and sort key "sk" of type S;`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			table := tableName()
			in := tc.in
			in.TableName = aws.String(table)
			in.BillingMode = types.BillingModePayPerRequest
			if _, err := client.CreateTable(ctx, &in); err != nil {
				t.Fatal(err)
			}
			deleteOnCleanup(t, client, table)
			waitCreated(t, client, table)
			check := func(what string, err error, want ...string) {
				t.Helper()
				if !errors.Is(err, ErrWrongSchema) {
					t.Fatalf("%s on table %s: %v; want ErrWrongSchema", what, tc.name, err)
				}
				for _, want := range append([]string{table, `partition key "domain" of type S`}, want...) {
					if !strings.Contains(err.Error(), want) {
						t.Fatalf("%s: error %q does not mention %q", what, err, want)
					}
				}
			}
			// An item call's error also reaches the server's refusal.
			checkItem := func(what string, err error, want ...string) {
				t.Helper()
				check(what, err, want...)
				var api smithy.APIError
				if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" {
					t.Fatalf("%s: %v; want the server's ValidationException beneath", what, err)
				}
			}
			check("CreateTable", CreateTable(ctx, client, table), tc.have)
			l := coord.Lease{Domain: "d", Holder: "A", Token: 1}
			for _, v := range []struct {
				name string
				c    *Driver
				want string
			}{
				{"", mustNew(t, client, table, nil), tc.have},
				{" without DescribeTable", newDriver(noDescribe{client}, table, nil), "could not be read"},
			} {
				if v.name == "" {
					check("CheckTable", v.c.CheckTable(ctx), tc.have)
				}
				_, err := v.c.TryAcquire(ctx, coord.Request{Domain: "d", Holder: "A", TTL: time.Second})
				checkItem("TryAcquire"+v.name, err, v.want)
				_, err = v.c.State(ctx, "d")
				checkItem("State"+v.name, err, v.want)
				_, err = v.c.Renew(ctx, l, time.Second)
				checkItem("Renew"+v.name, err, v.want)
				checkItem("Release"+v.name, v.c.Release(ctx, l), v.want)
			}
		})
	}
}

// TestOtherValidationError: a ValidationException that is not about the
// table's key (here a key value over DynamoDB's 2048 bytes, which
// coord.New would have refused) is reported as the server's error, never
// as ErrWrongSchema, with or without DescribeTable.
func TestOtherValidationError(t *testing.T) { dynamotest.Run(t, testOtherValidationError) }

func testOtherValidationError(t *testing.T, endpoint string) {
	client := testClient(t, endpoint)
	ctx := testCtx(t)
	table := newTable(t, client)
	long := strings.Repeat("d", 3000)
	for _, c := range []*Driver{mustNew(t, client, table, nil), newDriver(noDescribe{client}, table, nil)} {
		_, err := c.TryAcquire(ctx, coord.Request{Domain: long, Holder: "A", TTL: time.Second})
		var api smithy.APIError
		if err == nil || errors.Is(err, ErrWrongSchema) || !errors.As(err, &api) || api.ErrorCode() != "ValidationException" {
			t.Fatalf("TryAcquire with a 3000-byte domain: %v; want the server's ValidationException, not ErrWrongSchema", err)
		}
		if _, err := c.State(ctx, long); err == nil || errors.Is(err, ErrWrongSchema) {
			t.Fatalf("State with a 3000-byte domain: %v; want an error other than ErrWrongSchema", err)
		}
	}
}

// noDescribe is a client whose role may not call DescribeTable, as with
// fence's least-privilege writer policy (dynamodb:GetItem and
// dynamodb:UpdateItem only).
type noDescribe struct{ *dynamodb.Client }

func (noDescribe) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return nil, &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "DescribeTable",
		Err: httpError(400, &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not authorized to perform: dynamodb:DescribeTable"})}
}

func TestCreateTableIdempotent(t *testing.T) { dynamotest.Run(t, testCreateTableIdempotent) }

func testCreateTableIdempotent(t *testing.T, endpoint string) {
	client := testClient(t, endpoint)
	ctx := testCtx(t)
	table := newTable(t, client)
	if err := CreateTable(ctx, client, table); err != nil {
		t.Fatalf("second CreateTable: %v", err)
	}
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("table status %s after CreateTable; want ACTIVE", out.Table.TableStatus)
	}
	if bm := out.Table.BillingModeSummary; bm != nil && bm.BillingMode != types.BillingModePayPerRequest {
		t.Fatalf("billing mode %s; want PAY_PER_REQUEST", bm.BillingMode)
	}
	ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	if s := ttl.TimeToLiveDescription.TimeToLiveStatus; s != types.TimeToLiveStatusDisabled {
		t.Fatalf("TTL status %s; want DISABLED", s)
	}
	c := mustNew(t, client, table, nil)
	if err := c.CheckTable(ctx); err != nil {
		t.Fatalf("CheckTable: %v", err)
	}
	if _, err := c.TryAcquire(ctx, coord.Request{Domain: "d", Holder: "A", TTL: time.Second}); err != nil {
		t.Fatalf("TryAcquire on the created table: %v", err)
	}
	if err := CreateTable(ctx, client, "no"); !errors.Is(err, coord.ErrInvalid) {
		t.Fatalf("CreateTable with a bad name: %v; want coord.ErrInvalid", err)
	}
}

// TestFloorAboveCounter checks both update forms: counter+1 when the
// counter is at or above the floor, floor+1 when it is below.
func TestFloorAboveCounter(t *testing.T) { dynamotest.Run(t, testFloorAboveCounter) }

func testFloorAboveCounter(t *testing.T, endpoint string) {
	client := testClient(t, endpoint)
	clk := coordtest.NewFakeClock(coordtest.FakeStart)
	c := mustNew(t, client, newTable(t, client), &Options{Clock: clk})
	ctx := testCtx(t)
	acquire := func(floor, want uint64) {
		t.Helper()
		l, err := c.TryAcquire(ctx, coord.Request{Domain: "d", Holder: "A", TTL: time.Second, Floor: floor})
		if err != nil {
			t.Fatalf("TryAcquire(floor %d): %v", floor, err)
		}
		if l.Token != want {
			t.Fatalf("TryAcquire(floor %d) = token %d; want %d", floor, l.Token, want)
		}
		st, err := c.State(ctx, "d")
		if err != nil || st.Token != want || st.Holder != "A" {
			t.Fatalf("State = %+v, %v; want held by A with token %d", st, err, want)
		}
		if err := c.Release(ctx, l); err != nil {
			t.Fatalf("Release: %v", err)
		}
	}
	acquire(41, 42)   // new item, floor above the (absent) counter
	acquire(0, 43)    // no floor
	acquire(43, 44)   // floor equal to the counter
	acquire(10, 45)   // floor below the counter
	acquire(100, 101) // floor above the counter
	acquire(100, 102)
	// A live holder with a counter below the floor: still a HeldError.
	l, err := c.TryAcquire(ctx, coord.Request{Domain: "d", Holder: "A", TTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.TryAcquire(ctx, coord.Request{Domain: "d", Holder: "B", TTL: time.Second, Floor: 500})
	var he *coord.HeldError
	if !errors.As(err, &he) || he.Holder != "A" || he.Token != l.Token {
		t.Fatalf("TryAcquire by B with a floor while A holds: %v; want a HeldError naming A, token %d", err, l.Token)
	}
	clk.Advance(time.Second) // A's lease is over
	l, err = c.TryAcquire(ctx, coord.Request{Domain: "d", Holder: "B", TTL: time.Second, Floor: 500})
	if err != nil || l.Token != 501 {
		t.Fatalf("TryAcquire by B after A's expiry = %+v, %v; want token 501", l, err)
	}
}

// TestCorruptItem: an item the coordinator cannot trust is reported, and
// nothing is written over it.
func TestCorruptItem(t *testing.T) { dynamotest.Run(t, testCorruptItem) }

func testCorruptItem(t *testing.T, endpoint string) {
	client := testClient(t, endpoint)
	ctx := testCtx(t)
	table := newTable(t, client)
	c := mustNew(t, client, table, nil)
	for name, av := range map[string]map[string]types.AttributeValue{
		"TokenNotNumber":  {attrToken: str("seven")},
		"HolderNoExpiry":  {attrToken: num(3), attrHolder: str("A")},
		"TokenAboveMax":   {attrToken: &types.AttributeValueMemberN{Value: "9223372036854775808"}},
		"NegativeToken":   {attrToken: &types.AttributeValueMemberN{Value: "-1"}},
		"HolderNotString": {attrToken: num(3), attrHolder: num(1), attrExpires: num(1)},
	} {
		t.Run(name, func(t *testing.T) {
			domain := "corrupt/" + name
			av[attrDomain] = str(domain)
			if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: av}); err != nil {
				t.Fatal(err)
			}
			_, err := c.State(ctx, domain)
			if !errors.Is(err, coord.ErrCorruptRecord) || !strings.Contains(err.Error(), table) {
				t.Fatalf("State: %v; want ErrCorruptRecord naming the table", err)
			}
			// Each form of the acquisition's update: no floor, a floor
			// below the counter, and Force (which takes a live lease,
			// but not a corrupt item's; an item with a holder and no
			// expiry is not among those it refuses).
			reqs := []coord.Request{{Floor: 0}, {Floor: 2}}
			if name != "HolderNoExpiry" {
				reqs = append(reqs, coord.Request{Force: true})
			}
			for _, r := range reqs {
				r.Domain, r.Holder, r.TTL = domain, "B", time.Second
				_, err = c.TryAcquire(ctx, r)
				if !errors.Is(err, coord.ErrCorruptRecord) {
					t.Fatalf("TryAcquire(floor %d, force %v): %v; want ErrCorruptRecord", r.Floor, r.Force, err)
				}
				out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key(domain), ConsistentRead: aws.Bool(true)})
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := out.Item[attrAttempt]; ok {
					t.Fatalf("TryAcquire(floor %d, force %v) wrote over the corrupt item: %v", r.Floor, r.Force, out.Item)
				}
			}
		})
	}
}

// TestOpen: Open finds the endpoint and region through the standard AWS
// chain (AWS_ENDPOINT_URL_DYNAMODB, AWS_REGION) as well as through its
// options.
func TestOpen(t *testing.T) { dynamotest.Run(t, testOpen) }

func testOpen(t *testing.T, endpoint string) {
	client := testClient(t, endpoint)
	ctx := testCtx(t)
	table := newTable(t, client)
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
	t.Setenv("AWS_REGION", "us-east-1")
	c, err := Open(ctx, table, nil)
	if err != nil {
		t.Fatalf("Open from the environment: %v", err)
	}
	if err := c.CheckTable(ctx); err != nil {
		t.Fatalf("CheckTable through the environment's endpoint: %v", err)
	}
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://127.0.0.1:1") // overridden below
	c, err = Open(ctx, table, &OpenOptions{Endpoint: endpoint, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.TryAcquire(ctx, coord.Request{Domain: "d", Holder: "A", TTL: time.Second}); err != nil {
		t.Fatalf("TryAcquire through the Endpoint option: %v", err)
	}
}

func TestOpenRejects(t *testing.T) {
	ctx := t.Context()
	t.Setenv("AWS_REGION", "us-east-1")
	for _, tc := range []struct{ table, endpoint, notInMessage string }{
		{table: "ab"},
		{table: "bad/name"},
		{table: "fence-leases", endpoint: "ftp://127.0.0.1:1"},
		{table: "fence-leases", endpoint: "http://AKIDEXAMPLE:s3cr3t@127.0.0.1:1", notInMessage: "s3cr3t"},
	} {
		_, err := Open(ctx, tc.table, &OpenOptions{Endpoint: tc.endpoint})
		if !errors.Is(err, coord.ErrInvalid) {
			t.Errorf("Open(%q, endpoint %q) = %v; want coord.ErrInvalid", tc.table, tc.endpoint, err)
		} else if tc.notInMessage != "" && strings.Contains(err.Error(), tc.notInMessage) {
			t.Errorf("Open's error %q repeats the credentials", err)
		}
	}
}

func mustNew(t *testing.T, client *dynamodb.Client, table string, opts *Options) *Driver {
	t.Helper()
	c, err := New(client, table, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
