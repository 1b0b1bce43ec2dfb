// Package dynamocoord is a coord.Driver that issues leases and fencing
// tokens from a DynamoDB table. Users wrap it with coord.New.
//
// Each domain has one item, keyed by the partition key "domain" (S):
//
//	token   N  the counter: the last token issued
//	holder  S  the holder; absent when released
//	expires N  the holder's expiry, unix milliseconds by the coordinator's clock
//	attempt S  a random id of the last write
//
// An acquisition is one conditional UpdateItem that raises the counter and
// sets holder and expiry, allowed only when there is no live holder; the
// new token comes back with ReturnValues ALL_NEW. Renewal and release are
// conditional on holder and token; release keeps the counter. Items are
// never deleted and the table has no TTL: a counter that went back to
// zero would reissue tokens. After a destructive reset, acquire with a
// Floor (the store's highest token) and the counter resumes above it.
//
// When a condition fails, a consistent read names the current holder
// (ReturnValuesOnConditionCheckFailure is not relied on: some DynamoDB
// implementations ignore it). When an update's reply is lost, a
// consistent read that finds the update's attempt id proves it applied.
//
// # Errors
//
// Lease errors are coord's (coord.ErrLeaseHeld with a *coord.HeldError,
// coord.ErrLeaseLost, coord.ErrInvalid, coord.ErrCorruptRecord). A
// missing table matches ErrTableNotFound, a table with another key
// ErrWrongSchema; errors.As reaches the SDK's error beneath. Item calls
// on a table with another key are refused with a ValidationException
// whose words differ between implementations (dynalite: "The provided key
// element does not match the schema"; DynamoDB Local: "One of the
// required keys was not given a value", "The number of conditions on the
// keys is invalid"), so after a ValidationException the driver reads the
// table's description to tell, and names the key the table has; without
// dynamodb:DescribeTable it goes by the words. An update
// whose outcome cannot be settled is a *coord.UnknownOutcomeError
// (coord.ErrOutcomeUnknown).
//
// # Configuration
//
// Open and NewClient use the standard AWS chain: AWS_REGION,
// AWS_ENDPOINT_URL_DYNAMODB, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
// AWS_PROFILE and the shared files, instance roles. Credentials are never
// taken from anywhere else, and never logged.
package dynamocoord
