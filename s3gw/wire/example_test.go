package wire_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/fencedstore/fence/s3gw/wire"
)

// A PUT whose body is aws-chunked with a CRC32 trailer, as the AWS SDKs
// send it over HTTPS, signed with aws-sdk-go-v2's signer: the verifier
// accepts it and the body reads as the client's bytes, checksum verified.
func Example() {
	signedAt := time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC)
	body := "b\r\nHello fence\r\n0\r\nx-amz-checksum-crc32:XEi2SQ==\r\n\r\n"
	r, _ := http.NewRequest("PUT", "http://127.0.0.1:9000/bucket/key", strings.NewReader(body))
	r.Header.Set("X-Amz-Content-Sha256", wire.StreamingUnsignedTrailer)
	r.Header.Set("X-Amz-Trailer", "x-amz-checksum-crc32")
	r.Header.Set("X-Amz-Decoded-Content-Length", "11")
	r.Header.Set("Content-Encoding", "aws-chunked")
	_ = v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"},
		r, wire.StreamingUnsignedTrailer, "s3", "us-east-1", signedAt)

	v, _ := wire.NewVerifier(wire.StaticCredentials{"AKID": "secret"},
		wire.Options{Region: "us-east-1", Now: func() time.Time { return signedAt }})
	auth, err := v.Verify(r)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := wire.OpenBody(r, auth, wire.BodyOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	data, err := io.ReadAll(b)
	c, _ := b.Checksum()
	fmt.Printf("%q %v %s %s\n", data, err, c.Algorithm, c.Value)
	// Output: "Hello fence" <nil> CRC32 XEi2SQ==
}
