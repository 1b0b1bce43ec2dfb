package wire

import (
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
)

// The S3 error codes this package returns, with the HTTP status S3 gives
// each. Clients switch on the code, so each is spelled exactly as S3 spells
// it.
const (
	CodeAccessDenied                      = "AccessDenied"                      // 403
	CodeAuthorizationHeaderMalformed      = "AuthorizationHeaderMalformed"      // 400
	CodeAuthorizationQueryParametersError = "AuthorizationQueryParametersError" // 400
	CodeBadDigest                         = "BadDigest"                         // 400
	CodeIncompleteBody                    = "IncompleteBody"                    // 400
	CodeInvalidAccessKeyID                = "InvalidAccessKeyId"                // 403
	CodeInvalidArgument                   = "InvalidArgument"                   // 400
	CodeInvalidDigest                     = "InvalidDigest"                     // 400
	CodeInvalidRequest                    = "InvalidRequest"                    // 400
	CodeMissingContentLength              = "MissingContentLength"              // 411
	CodeRequestTimeTooSkewed              = "RequestTimeTooSkewed"              // 403
	CodeSignatureDoesNotMatch             = "SignatureDoesNotMatch"             // 403
	CodeXAmzContentSHA256Mismatch         = "XAmzContentSHA256Mismatch"         // 400

	// Codes of the gateway's handlers.
	CodeBucketAlreadyOwnedByYou = "BucketAlreadyOwnedByYou" // 409
	CodeEntityTooSmall          = "EntityTooSmall"          // 400
	CodeInternalError           = "InternalError"           // 500
	CodeInvalidBucketName       = "InvalidBucketName"       // 400
	CodeInvalidPart             = "InvalidPart"             // 400
	CodeInvalidPartOrder        = "InvalidPartOrder"        // 400
	CodeInvalidRange            = "InvalidRange"            // 416
	CodeKeyTooLong              = "KeyTooLongError"         // 400
	CodeMalformedXML            = "MalformedXML"            // 400
	CodeMethodNotAllowed        = "MethodNotAllowed"        // 405
	CodeNoSuchBucket            = "NoSuchBucket"            // 404
	CodeNoSuchKey               = "NoSuchKey"               // 404
	CodeNoSuchUpload            = "NoSuchUpload"            // 404
	CodeNotImplemented          = "NotImplemented"          // 501
	CodeNotModified             = "NotModified"             // 304
	CodePreconditionFailed      = "PreconditionFailed"      // 412
	CodeServiceUnavailable      = "ServiceUnavailable"      // 503
)

// Error is an S3 error: the code clients switch on, a message for people
// and the HTTP status it is sent with. Every refusal of this package is an
// *Error; find it with errors.As.
type Error struct {
	Code    string
	Message string
	Status  int
}

func (e *Error) Error() string {
	return fmt.Sprintf("s3gw: %s: %s", e.Code, e.Message)
}

// AsError returns the *Error in err's chain, or S3's InternalError (500)
// for any other error, so that a handler can answer every failure.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternalError, Message: "We encountered an internal error. Please try again.", Status: http.StatusInternalServerError}
}

// errorf builds an *Error with the status S3 gives code.
func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Status: statusOf(code)}
}

// Errorf builds an *Error of code, with the HTTP status S3 sends it with
// (400 for a code this package does not know).
func Errorf(code, format string, args ...any) *Error { return errorf(code, format, args...) }

func statusOf(code string) int {
	switch code {
	case CodeAccessDenied, CodeInvalidAccessKeyID, CodeRequestTimeTooSkewed, CodeSignatureDoesNotMatch:
		return http.StatusForbidden
	case CodeMissingContentLength:
		return http.StatusLengthRequired
	case CodeNoSuchBucket, CodeNoSuchKey, CodeNoSuchUpload:
		return http.StatusNotFound
	case CodeBucketAlreadyOwnedByYou:
		return http.StatusConflict
	case CodeInternalError:
		return http.StatusInternalServerError
	case CodeInvalidRange:
		return http.StatusRequestedRangeNotSatisfiable
	case CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case CodeNotImplemented:
		return http.StatusNotImplemented
	case CodeNotModified:
		return http.StatusNotModified
	case CodePreconditionFailed:
		return http.StatusPreconditionFailed
	case CodeServiceUnavailable:
		return http.StatusServiceUnavailable
	default:
		return http.StatusBadRequest
	}
}

// errorBody is the XML S3 sends with an error.
type errorBody struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string   `xml:"Code"`
	Message   string   `xml:"Message"`
	Resource  string   `xml:"Resource,omitempty"`
	RequestID string   `xml:"RequestId,omitempty"`
}

// WriteError sends e as S3 does: its status and an XML <Error> body naming
// the code, the message, the resource (the request's path) and requestID
// when it is not empty. A HEAD request gets the status and no body, as S3
// sends it.
func WriteError(w http.ResponseWriter, r *http.Request, e *Error, requestID string) {
	body, err := xml.Marshal(errorBody{Code: e.Code, Message: e.Message, Resource: r.URL.Path, RequestID: requestID})
	if err != nil {
		// Marshalling strings into a fixed struct cannot fail; keep the
		// status even if it ever does.
		body = nil
	}
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	if requestID != "" {
		h.Set("X-Amz-Request-Id", requestID)
	}
	if r.Method == http.MethodHead || e.Status == http.StatusNotModified {
		w.WriteHeader(e.Status)
		return
	}
	w.WriteHeader(e.Status)
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(body)
}
