package dynamocoord

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fencedstore/fence/internal/backoff"
)

// TableDeadline bounds CreateTable when its context has no deadline.
const TableDeadline = 5 * time.Minute

// CreateTable creates table for lease items, as `fence init` does, and
// waits until it is ACTIVE: partition key "domain" of type S, on-demand
// billing (PAY_PER_REQUEST), and no TTL (a TTL would delete lease items
// and with them the token counters). It is idempotent: a table that
// already exists with that key is fine, whatever its billing; one with
// another key fails with ErrWrongSchema.
func CreateTable(ctx context.Context, client *dynamodb.Client, table string) error {
	return createTable(ctx, client, table)
}

func createTable(ctx context.Context, api tableAPI, table string) error {
	if err := validateTable(table); err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, TableDeadline)
		defer cancel()
	}
	desc, err := describeTable(ctx, api, table)
	switch {
	case isNotFound(err):
		_, err = api.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(table),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(attrDomain), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(attrDomain), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
		})
		var inUse *types.ResourceInUseException
		if err != nil && !errors.As(err, &inUse) { // in use: created meanwhile by someone else
			return tableError("create table", "", table, err)
		}
	case err != nil:
		return tableError("create table", "", table, err)
	default:
		if err := checkSchema(table, desc); err != nil {
			return err
		}
	}
	return waitActive(ctx, api, table)
}

// waitActive polls until table is ACTIVE with the right key schema.
func waitActive(ctx context.Context, api tableAPI, table string) error {
	bo := backoff.Backoff{Base: 100 * time.Millisecond, Max: 5 * time.Second, Limit: -1} // bounded by TableDeadline
	for {
		desc, err := describeTable(ctx, api, table)
		if err != nil && !isNotFound(err) { // not found: not visible yet
			return tableError("create table", "", table, err)
		}
		if err == nil {
			if err := checkSchema(table, desc); err != nil {
				return err
			}
			switch desc.TableStatus {
			case types.TableStatusActive:
				return nil
			case types.TableStatusCreating, types.TableStatusUpdating:
			default:
				return fmt.Errorf("dynamocoord: create table: table %q is %s", table, desc.TableStatus)
			}
		}
		if werr := bo.Wait(ctx); werr != nil {
			return fmt.Errorf("dynamocoord: create table: waiting for table %q to become ACTIVE: %w", table, werr)
		}
	}
}

// CheckTable checks, as `fence doctor` does, that the driver's table
// exists with the right key schema, is ACTIVE, and has no TTL enabled.
// A missing table fails with ErrTableNotFound, a wrong key with
// ErrWrongSchema.
func (c *Driver) CheckTable(ctx context.Context) error {
	desc, err := describeTable(ctx, c.api, c.table)
	if err != nil {
		return tableError("check table", "", c.table, err)
	}
	if err := checkSchema(c.table, desc); err != nil {
		return err
	}
	if desc.TableStatus != types.TableStatusActive && desc.TableStatus != types.TableStatusUpdating {
		return fmt.Errorf("dynamocoord: check table: table %q is %s, not ACTIVE", c.table, desc.TableStatus)
	}
	ttl, err := c.api.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(c.table)})
	if err != nil {
		return tableError("check table TTL", "", c.table, err)
	}
	if d := ttl.TimeToLiveDescription; d != nil && (d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		return fmt.Errorf("dynamocoord: check table: table %q has TTL %s on attribute %q; lease items must never expire, or their token counters go back to zero: disable TTL on this table", c.table, d.TimeToLiveStatus, aws.ToString(d.AttributeName))
	}
	return nil
}

func describeTable(ctx context.Context, api interface {
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}, table string) (*types.TableDescription, error) {
	out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return nil, err
	}
	if out.Table == nil {
		return nil, fmt.Errorf("dynamocoord: describe table %q: the reply has no table description", table)
	}
	return out.Table, nil
}

// checkSchema fails with ErrWrongSchema unless desc's key is KeySchema.
func checkSchema(table string, desc *types.TableDescription) error {
	if problem := schemaProblem(table, desc); problem != "" {
		return schemaError("dynamocoord: "+problem+": use another table name, or let `fence init` create one", nil)
	}
	return nil
}

// schemaProblem describes desc's key when it is not KeySchema, and
// returns "" when it is.
func schemaProblem(table string, desc *types.TableDescription) string {
	attrType := map[string]types.ScalarAttributeType{}
	for _, d := range desc.AttributeDefinitions {
		attrType[aws.ToString(d.AttributeName)] = d.AttributeType
	}
	var have []string
	for _, k := range desc.KeySchema {
		name := aws.ToString(k.AttributeName)
		role := "partition key"
		if k.KeyType == types.KeyTypeRange {
			role = "sort key"
		}
		have = append(have, fmt.Sprintf("%s %q of type %s", role, name, attrType[name]))
	}
	ok := len(desc.KeySchema) == 1 && desc.KeySchema[0].KeyType == types.KeyTypeHash &&
		aws.ToString(desc.KeySchema[0].AttributeName) == attrDomain && attrType[attrDomain] == types.ScalarAttributeTypeS
	if ok {
		return ""
	}
	if len(have) == 0 {
		have = []string{"no key schema"}
	}
	return fmt.Sprintf("table %q has %s; a lease table needs %s", table, strings.Join(have, " and "), KeySchema)
}
