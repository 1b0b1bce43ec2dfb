package miniostore

import "net/http"

// ContinueThreshold is the body size from which ExpectContinue asks the
// store for 100 Continue before sending the body: the AWS SDK's default.
const ContinueThreshold = 2 << 20

// ExpectContinue returns a transport that adds "Expect: 100-continue" to
// every PUT or POST whose body is ContinueThreshold bytes or more, or of
// unknown length, and otherwise sends requests through rt. Open uses it;
// wrap the transport of a client you pass to New with it too.
//
// minio-go sends no such header. Without it a store that refuses a put
// from its headers alone (a failed If-None-Match or If-Match, a bad
// signature) answers while the body is still being sent and closes the
// connection, and the client may see "connection reset by peer" instead
// of the answer: minio-go retries the whole body, and the caller gets a
// network error where the store said 412. With it the client sends the
// headers and waits for the answer, up to rt's ExpectContinueTimeout
// (one second with fence's transport, after which it sends the body
// anyway), and sends the body only on 100 Continue.
func ExpectContinue(rt http.RoundTripper) http.RoundTripper {
	return expectContinue{rt}
}

type expectContinue struct{ next http.RoundTripper }

func (e expectContinue) RoundTrip(req *http.Request) (*http.Response, error) {
	large := req.ContentLength >= ContinueThreshold || req.ContentLength < 0
	if (req.Method == http.MethodPut || req.Method == http.MethodPost) && req.Body != nil && req.Body != http.NoBody && large && req.Header.Get("Expect") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("Expect", "100-continue")
	}
	return e.next.RoundTrip(req)
}
