package dynamocoord

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/fencedstore/fence/objstore/driver/netfail"
)

// Errors about the table. Test for them with errors.Is; errors.As reaches
// the SDK's error beneath.
var (
	// ErrTableNotFound: the table does not exist (in this region, at this
	// endpoint). `fence init` creates it.
	ErrTableNotFound = errors.New("dynamocoord: table not found")
	// ErrWrongSchema: the table exists but its key is not KeySchema.
	ErrWrongSchema = errors.New("dynamocoord: table has the wrong key schema")
)

// KeySchema describes the key a lease table must have.
const KeySchema = `partition key "domain" of type S (string), no sort key`

// kind is what a failed call means for the caller's next step.
type kind int

const (
	// ambiguous: the request may or may not have applied (a timeout, a
	// lost connection, a 5xx after the SDK's own retries).
	ambiguous kind = iota
	// conditionFailed: the condition did not hold; nothing was written.
	conditionFailed
	// retryable: refused without effect (throttling); try again later.
	retryable
	// final: refused without effect; report it.
	final
)

// classify sorts the error of a DynamoDB call.
func classify(err error) kind {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return conditionFailed
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
			"LimitExceededException", "TransactionConflictException":
			return retryable
		}
	}
	// No connection (refused, an unknown host, http/https mismatch):
	// the request was never sent, and no retry can send it.
	if netfail.IsUnreachable(err) {
		return final
	}
	// A reply with a 4xx status is a refusal: the request did not apply.
	// Anything else (no reply, a 5xx) may hide a write that applied.
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) && status.HTTPStatusCode() >= 400 && status.HTTPStatusCode() < 500 {
		return final
	}
	return ambiguous
}

// tableError explains err from a call on table for op on domain: a
// missing table gets its own message; anything else is wrapped as it is.
// Errors of calls on an item go through Driver.itemError, which also
// recognises a table with the wrong key.
func tableError(op, domain, table string, err error) error {
	prefix := errPrefix(op, domain)
	if isNotFound(err) {
		return &sentinelError{
			msg:  fmt.Sprintf("%s: table %q not found (check the region and endpoint; create it with `fence init`): %v", prefix, table, err),
			kind: ErrTableNotFound,
			err:  err,
		}
	}
	return fmt.Errorf("%s: table %q: %w", prefix, table, err)
}

func errPrefix(op, domain string) string {
	if domain == "" {
		return "dynamocoord: " + op
	}
	return fmt.Sprintf("dynamocoord: %s %q", op, domain)
}

// itemError explains err from a GetItem or UpdateItem on domain's item
// for op. A table whose key is not KeySchema refuses these calls with a
// ValidationException, in words that differ from one implementation to
// the next (keyMismatchMessages), so the table's description decides:
// after any ValidationException, DescribeTable is asked, and the error
// matches ErrWrongSchema only when the table's key is wrong; the message
// then names the key the table has. When the description cannot be read
// (a role without dynamodb:DescribeTable, as fence's least-privilege
// writer policy), the message alone decides. Any other validation error
// is reported as it is, never as a wrong schema.
func (c *Driver) itemError(ctx context.Context, op, domain string, err error) error {
	if !isValidation(err) {
		return tableError(op, domain, c.table, err)
	}
	prefix := errPrefix(op, domain)
	desc, derr := describeTable(ctx, c.api, c.table)
	if derr == nil {
		if problem := schemaProblem(c.table, desc); problem != "" {
			return schemaError(fmt.Sprintf("%s: %s: use another table name, or let `fence init` create one (DynamoDB refused the call: %v)", prefix, problem, err), err)
		}
		// The table's key is right: the refusal is about something else.
		return fmt.Errorf("%s: table %q: %w", prefix, c.table, err)
	}
	if isKeyMismatch(err) {
		return schemaError(fmt.Sprintf("%s: table %q does not have the key a lease table needs (%s); use a table created by `fence init`: %v (the table's key schema could not be read to show it: %v)", prefix, c.table, KeySchema, err, derr), err)
	}
	return fmt.Errorf("%s: table %q: %w", prefix, c.table, err)
}

func schemaError(msg string, err error) error {
	return &sentinelError{msg: msg, kind: ErrWrongSchema, err: err}
}

// sentinelError matches kind with errors.Is and unwraps to err (the
// SDK's error, if any).
type sentinelError struct {
	msg  string
	kind error
	err  error
}

func (e *sentinelError) Error() string        { return e.msg }
func (e *sentinelError) Is(target error) bool { return target == e.kind }
func (e *sentinelError) Unwrap() error        { return e.err }

func isNotFound(err error) bool {
	var rnf *types.ResourceNotFoundException
	return errors.As(err, &rnf)
}

// keyMismatchMessages are what DynamoDB implementations say, in a
// ValidationException, about a key that does not fit the table's key
// schema, in lower case. The driver always sends exactly the key
// {"domain": S}, so on a table whose key is KeySchema none of them can
// occur.
var keyMismatchMessages = []string{
	"key element",      // "The provided key element does not match the schema": dynalite, every wrong key
	"mismatch for key", // "... Type mismatch for key": DynamoDB Local, a key attribute of another type
	"missing the key",
	"one of the required keys was not given a value",  // DynamoDB Local: the table's key is another attribute
	"the number of conditions on the keys is invalid", // DynamoDB Local: the table also has a sort key
}

// isKeyMismatch reports whether err is a ValidationException in which the
// server says that the key we sent does not match the table's key schema.
func isKeyMismatch(err error) bool {
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" {
		return false
	}
	msg := strings.ToLower(api.ErrorMessage())
	for _, m := range keyMismatchMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

func isValidation(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException"
}
