package dynamocoord

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
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
	// A reply with a 4xx status is a refusal: the request did not apply.
	// Anything else (no reply, a 5xx) may hide a write that applied.
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) && status.HTTPStatusCode() >= 400 && status.HTTPStatusCode() < 500 {
		return final
	}
	return ambiguous
}

// tableError explains err from a call on table for op on domain: a
// missing table or a wrong key schema get their own message; anything
// else is wrapped as it is.
func tableError(op, domain, table string, err error) error {
	prefix := fmt.Sprintf("dynamocoord: %s %q", op, domain)
	if domain == "" {
		prefix = "dynamocoord: " + op
	}
	switch {
	case isNotFound(err):
		return &sentinelError{
			msg:  fmt.Sprintf("%s: table %q not found (check the region and endpoint; create it with `fence init`): %v", prefix, table, err),
			kind: ErrTableNotFound,
			err:  err,
		}
	case isKeyMismatch(err):
		return schemaError(fmt.Sprintf("%s: table %q does not have the key a lease table needs (%s); use a table created by `fence init`: %v", prefix, table, KeySchema, err), err)
	}
	return fmt.Errorf("%s: table %q: %w", prefix, table, err)
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

// isKeyMismatch reports whether err is DynamoDB's complaint that the key
// we sent does not match the table's key schema ("The provided key element
// does not match the schema", "Type mismatch for key domain ...").
func isKeyMismatch(err error) bool {
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" {
		return false
	}
	msg := strings.ToLower(api.ErrorMessage())
	return strings.Contains(msg, "key element") || strings.Contains(msg, "mismatch for key") || strings.Contains(msg, "missing the key")
}

func isValidation(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException"
}
