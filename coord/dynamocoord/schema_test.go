package dynamocoord

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// validation is a ValidationException as the SDK returns it.
func validation(msg string) error {
	return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "UpdateItem",
		Err: httpError(400, &smithy.GenericAPIError{Code: "ValidationException", Message: msg})}
}

// described answers DescribeTable with a table whose partition key is
// name, of type typ.
func described(name string, typ types.ScalarAttributeType) func() (*dynamodb.DescribeTableOutput, error) {
	return func() (*dynamodb.DescribeTableOutput, error) {
		return &dynamodb.DescribeTableOutput{Table: &types.TableDescription{
			TableStatus:          types.TableStatusActive,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(name), AttributeType: typ}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(name), KeyType: types.KeyTypeHash}},
		}}, nil
	}
}

// TestItemErrorDescribeDecides: after a ValidationException the table's
// description decides whether the key is wrong, whatever the server's
// words; without a description, the words decide. dynalite and DynamoDB
// Local cover the cases a real server produces (TestWrongSchema,
// TestOtherValidationError); these are the others.
func TestItemErrorDescribeDecides(t *testing.T) {
	denied := func() (*dynamodb.DescribeTableOutput, error) { return nil, errDenied }
	for _, tc := range []struct {
		name     string
		err      error
		describe func() (*dynamodb.DescribeTableOutput, error)
		wrong    bool   // want ErrWrongSchema
		want     string // in the message
	}{
		{"KeyWordsRightTable", validation("One of the required keys was not given a value"), described("domain", types.ScalarAttributeTypeS), false, "One of the required keys"},
		{"NewWordsWrongTable", validation("Some words no implementation uses yet"), described("id", types.ScalarAttributeTypeS), true, `has partition key "id" of type S`},
		{"OtherWordsRightTable", validation("Invalid UpdateExpression: something"), described("domain", types.ScalarAttributeTypeS), false, "Invalid UpdateExpression"},
		{"OtherWordsNoDescription", validation("Invalid UpdateExpression: something"), denied, false, "Invalid UpdateExpression"},
		{"KeyWordsNoDescription", validation("The number of conditions on the keys is invalid"), denied, true, "could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t, step{err: tc.err})
			f.describe = tc.describe
			_, err := c.TryAcquire(t.Context(), request())
			if errors.Is(err, ErrWrongSchema) != tc.wrong {
				t.Fatalf("TryAcquire = %v; want ErrWrongSchema %v", err, tc.wrong)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fence-leases") {
				t.Fatalf("TryAcquire = %q; want it to mention %q and the table", err, tc.want)
			}
			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" {
				t.Fatalf("TryAcquire = %v; want the ValidationException beneath", err)
			}
		})
	}
}

// TestItemErrorNotValidation: other refusals do not ask for the table's
// description.
func TestItemErrorNotValidation(t *testing.T) {
	f, c := newFake(t, step{err: errDenied})
	described := 0
	f.describe = func() (*dynamodb.DescribeTableOutput, error) { described++; return nil, errDenied }
	if _, err := c.TryAcquire(t.Context(), request()); err == nil || errors.Is(err, ErrWrongSchema) || described != 0 {
		t.Fatalf("TryAcquire = %v after %d DescribeTable calls; want the refusal and none", err, described)
	}
}
