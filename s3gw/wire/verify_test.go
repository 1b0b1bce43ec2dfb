package wire

import (
	"context"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// sdkSigned is a PUT signed by aws-sdk-go-v2's signer at t in region.
func sdkSigned(t *testing.T, at time.Time, region, secret string) *http.Request {
	t.Helper()
	r, _ := http.NewRequest("PUT", "http://localhost:9000/bkt/some%20key?partNumber=1&uploadId=x", strings.NewReader("body"))
	r.Header.Set("X-Amz-Content-Sha256", UnsignedPayload)
	r.Header.Set("X-Amz-Meta-Note", "  two   spaces  ")
	err := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }).SignHTTP(context.Background(),
		aws.Credentials{AccessKeyID: docAccessKey, SecretAccessKey: secret}, r, UnsignedPayload, "s3", region, at)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVerifyHeader(t *testing.T) {
	now := time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC)
	v := docVerifier(t, now)
	a, err := v.Verify(sdkSigned(t, now, "us-east-1", docSecret))
	if err != nil {
		t.Fatalf("a request the SDK signed: %v", err)
	}
	if a.AccessKey != docAccessKey || a.Scope.Region != "us-east-1" || !a.Time.Equal(now) || a.PayloadHash != UnsignedPayload {
		t.Errorf("Auth = %+v", a)
	}
	for _, tc := range []struct {
		name string
		r    func() *http.Request
		code string
	}{
		{"14 minutes early", func() *http.Request { return sdkSigned(t, now.Add(-14*time.Minute), "us-east-1", docSecret) }, ""},
		{"14 minutes late", func() *http.Request { return sdkSigned(t, now.Add(14*time.Minute), "us-east-1", docSecret) }, ""},
		{"16 minutes early", func() *http.Request { return sdkSigned(t, now.Add(-16*time.Minute), "us-east-1", docSecret) }, CodeRequestTimeTooSkewed},
		{"16 minutes late", func() *http.Request { return sdkSigned(t, now.Add(16*time.Minute), "us-east-1", docSecret) }, CodeRequestTimeTooSkewed},
		{"another region", func() *http.Request { return sdkSigned(t, now, "eu-west-1", docSecret) }, CodeAuthorizationHeaderMalformed},
		{"wrong secret", func() *http.Request { return sdkSigned(t, now, "us-east-1", "wrong") }, CodeSignatureDoesNotMatch},
		{"a signed header changed", func() *http.Request {
			r := sdkSigned(t, now, "us-east-1", docSecret)
			r.Header.Set("X-Amz-Meta-Note", "changed")
			return r
		}, CodeSignatureDoesNotMatch},
		{"the query changed", func() *http.Request {
			r := sdkSigned(t, now, "us-east-1", docSecret)
			r.URL.RawQuery = "partNumber=2&uploadId=x"
			return r
		}, CodeSignatureDoesNotMatch},
		{"the path changed", func() *http.Request {
			r := sdkSigned(t, now, "us-east-1", docSecret)
			r.URL.Path = "/bkt/other key"
			return r
		}, CodeSignatureDoesNotMatch},
		{"the payload mode changed", func() *http.Request {
			r := sdkSigned(t, now, "us-east-1", docSecret)
			r.Header.Set("X-Amz-Content-Sha256", StreamingUnsignedTrailer)
			return r
		}, CodeSignatureDoesNotMatch},
		{"no x-amz-content-sha256", func() *http.Request {
			r := sdkSigned(t, now, "us-east-1", docSecret)
			r.Header.Del("X-Amz-Content-Sha256")
			return r
		}, CodeInvalidRequest},
		{"a bad x-amz-content-sha256", func() *http.Request {
			r := sdkSigned(t, now, "us-east-1", docSecret)
			r.Header.Set("X-Amz-Content-Sha256", "STREAMING-UNSIGNED-PAYLOAD")
			return r
		}, CodeInvalidArgument},
		{"no X-Amz-Date", func() *http.Request {
			r := sdkSigned(t, now, "us-east-1", docSecret)
			r.Header.Del("X-Amz-Date")
			return r
		}, CodeAccessDenied},
		{"not signed", func() *http.Request {
			r, _ := http.NewRequest("GET", "http://localhost/bkt/k", nil)
			return r
		}, CodeAccessDenied},
		{"header and presigned query", func() *http.Request {
			r := sdkSigned(t, now, "us-east-1", docSecret)
			r.URL.RawQuery += "&X-Amz-Signature=" + strings.Repeat("0", 64)
			return r
		}, CodeInvalidArgument},
		{"signature version 2", func() *http.Request {
			r := sdkSigned(t, now, "us-east-1", docSecret)
			r.Header.Set("Authorization", "AWS AKID:c2lnbmF0dXJl")
			return r
		}, CodeInvalidRequest},
	} {
		_, err := v.Verify(tc.r())
		if code(err) != tc.code {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.code)
		}
	}
}

func TestNewVerifierRefusesBadOptions(t *testing.T) {
	if _, err := NewVerifier(nil, Options{}); err == nil {
		t.Error("NewVerifier(nil) succeeded")
	}
	if _, err := NewVerifier(StaticCredentials{}, Options{MaxSkew: -time.Second}); err == nil {
		t.Error("NewVerifier with a negative MaxSkew succeeded")
	}
}

// TestWriteError: the XML body S3 clients parse, with its code and status;
// a HEAD gets the status alone.
func TestWriteError(t *testing.T) {
	e := errorf(CodeSignatureDoesNotMatch, "bad <sig> & more")
	w := httptest.NewRecorder()
	WriteError(w, httptest.NewRequest("PUT", "/bkt/k", nil), e, "req-1")
	if w.Code != http.StatusForbidden || w.Header().Get("Content-Type") != "application/xml" || w.Header().Get("X-Amz-Request-Id") != "req-1" {
		t.Fatalf("status %d, headers %v", w.Code, w.Header())
	}
	var got struct {
		XMLName                            xml.Name `xml:"Error"`
		Code, Message, Resource, RequestId string
	}
	if err := xml.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, w.Body)
	}
	if got.Code != CodeSignatureDoesNotMatch || got.Message != "bad <sig> & more" || got.Resource != "/bkt/k" || got.RequestId != "req-1" {
		t.Errorf("body %+v", got)
	}
	w = httptest.NewRecorder()
	WriteError(w, httptest.NewRequest("HEAD", "/bkt/k", nil), errorf(CodeAccessDenied, "no"), "")
	if w.Code != http.StatusForbidden || w.Body.Len() != 0 {
		t.Errorf("HEAD: status %d, %d body bytes", w.Code, w.Body.Len())
	}
	for c, want := range map[string]int{CodeAccessDenied: 403, CodeInvalidAccessKeyID: 403, CodeRequestTimeTooSkewed: 403, CodeBadDigest: 400, CodeMissingContentLength: 411} {
		if got := errorf(c, "x").Status; got != want {
			t.Errorf("%s: status %d, want %d", c, got, want)
		}
	}
}
