package s3store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// expectContinue makes the HTTP client honour the "Expect: 100-continue"
// header the SDK puts on a PutObject or UploadPart of 2 MiB or more: it
// then sends the headers, waits for the store's 100 Continue (up to the
// transport's ExpectContinueTimeout, one second) and sends the body only
// after it.
//
// Without it a store that refuses the request from its headers alone (a
// failed If-None-Match or If-Match, a bad signature) answers while the
// body is still being sent and closes the connection, and the client may
// see "connection reset by peer" instead of the answer: the SDK retries
// the whole body, and the caller gets a network error where the store
// said 412. Go's transport waits for 100 Continue only on requests of
// protocol HTTP/1.1 or later, and the SDK builds its requests with the
// protocol version unset (0.0), so the header went out and was never
// waited for. This sets it.
func expectContinue(o *s3.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Finalize.Add(middleware.FinalizeMiddlewareFunc("FenceExpectContinue",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				if req, ok := in.Request.(*smithyhttp.Request); ok && req.Header.Get("Expect") != "" && req.ProtoMajor == 0 {
					req.Proto, req.ProtoMajor, req.ProtoMinor = "HTTP/1.1", 1, 1
				}
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	})
}
