package dynamocoord

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// DynamoDB sends the CRC32 (IEEE) of each response body in the
// x-amz-crc32 header, and aws-sdk-go-v2's DynamoDB client checks it
// (service/dynamodb/internal/customizations/checksum.go, v1.74.0). That
// check has two faults:
//
//   - It also checks a response without the header, against a checksum
//     of 0, so such a response always fails it. DynamoDB Local 3.3.1, in
//     our runs, sent the header on every successful reply and on none of
//     its error replies (a failed condition, a missing table, a
//     validation error; dynalite sends it on both, and
//     TestNoChecksumWarnings counts them), so each error reply from
//     DynamoDB Local made the SDK log "failed to close HTTP response body,
//     this may affect connection reuse: response did not match expected
//     checksum, 0, N", where N is the CRC32 of the error's body. fence
//     meets failed conditions in normal work (a lease held by someone
//     else), so a user saw these warnings. Reported upstream as
//     aws/aws-sdk-go-v2#3545.
//   - It runs when the body is closed, after the reply was decoded and
//     used, and a mismatch is only logged: a corrupted reply is used.
//
// Compression plays no part: the client asks for Accept-Encoding:
// identity (its EnableAcceptEncodingGzip is off), and DynamoDB Local sent
// uncompressed bodies even when asked for gzip.
//
// So NewClient turns the SDK's check off and installs checkResponseCRC32
// instead, where the SDK's check was (next to the transport, beneath the
// operation's deserializer): with the header, the body is read whole and
// checked before anything decodes it, and a mismatch fails the call,
// saying so (for an update that is a reply that may hide an applied
// write, which the driver settles by reading the item back, as after any
// ambiguous reply); without the header, there is nothing to check the
// body against, and it is passed on as it came.
const crc32Header = "X-Amz-Crc32"

// useResponseCRC32 replaces the SDK's response checksum with
// checkResponseCRC32 in a client's options.
func useResponseCRC32(o *dynamodb.Options) {
	o.DisableValidateResponseChecksum = true
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Deserialize.Add(checkResponseCRC32{}, middleware.After)
	})
}

// checkResponseCRC32 checks a response body against its x-amz-crc32
// header, when it has one.
type checkResponseCRC32 struct{}

func (checkResponseCRC32) ID() string { return "fence:ResponseCRC32" }

func (checkResponseCRC32) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleDeserialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if !ok {
		return out, md, nil
	}
	v := resp.Header.Get(crc32Header)
	if v == "" {
		return out, md, nil // nothing to check against (DynamoDB Local's error replies)
	}
	want, perr := strconv.ParseUint(v, 10, 32)
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	switch {
	case rerr != nil:
		return out, md, &smithy.DeserializationError{Err: fmt.Errorf("dynamocoord: reading the reply (HTTP %d): %w", resp.StatusCode, rerr)}
	case perr != nil:
		return out, md, &smithy.DeserializationError{Err: fmt.Errorf("dynamocoord: the reply (HTTP %d) has an %s header %q that is not a CRC32", resp.StatusCode, crc32Header, v)}
	}
	if got := crc32.ChecksumIEEE(body); got != uint32(want) {
		return out, md, &smithy.DeserializationError{Err: fmt.Errorf("dynamocoord: the reply (HTTP %d, %d bytes) was corrupted on the way: its CRC32 is %d, but its %s header says %d", resp.StatusCode, len(body), got, crc32Header, want)}
	}
	return out, md, nil
}
