package driver

import (
	"fmt"
	"net/url"
	"strings"
)

// ServiceError wraps an SDK's error for a store's answer with the one
// line that says it: the service's error code, the HTTP status and the
// service's message. Its Error is the SDK's full text (with Azure's, a
// dump of many lines: the request, the XML body, the request id); Brief
// prints the line instead. errors.As still reaches the SDK's error.
type ServiceError struct {
	Code    string // the service's error code ("NoSuchBucket", "ContainerNotFound"); "" without one
	Status  int    // the HTTP status; 0 without an answer
	Message string // the service's message, one line; "" without one
	Err     error  // the SDK's error
}

func (e *ServiceError) Error() string { return e.Err.Error() }
func (e *ServiceError) Unwrap() error { return e.Err }

// Line returns the answer in one line: "CODE: MESSAGE (HTTP STATUS)".
func (e *ServiceError) Line() string {
	var b strings.Builder
	b.WriteString(e.Code)
	if msg := oneLine(e.Message); msg != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(msg)
	}
	if e.Status != 0 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "(HTTP %d)", e.Status)
	}
	if b.Len() == 0 {
		return oneLine(e.Err.Error())
	}
	return b.String()
}

// Service wraps err in a *ServiceError, unless err is nil or already
// carries one.
func Service(err error, code string, status int, message string) error {
	if err == nil || find[*ServiceError](err) != nil {
		return err
	}
	return &ServiceError{Code: code, Status: status, Message: message, Err: err}
}

// Brief returns err's message for people, in one line: the full text of
// each *ServiceError in it replaced by its Line, and any other line
// breaks by spaces. The full text is err.Error().
func Brief(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	walk(err, func(e error) {
		switch e := e.(type) {
		case *ServiceError:
			if full := e.Err.Error(); full != "" {
				s = strings.ReplaceAll(s, full, e.Line())
			}
		case *UnreachableError:
			// The SDK's text around the request's error says nothing
			// more: "operation error S3: GetObject, https response
			// error StatusCode: 0, ..., Get URL: dial tcp ...:
			// connection refused".
			short := ""
			if ue := find[*url.Error](e.Err); ue != nil {
				short = ue.Error()
			}
			if full := e.Err.Error(); short != "" && full != "" {
				s = strings.ReplaceAll(s, full, short)
			}
		}
	})
	return oneLine(s)
}

// oneLine joins s's lines with spaces, dropping blank ones and the
// lines of dashes some SDKs frame their dumps with.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return strings.TrimSpace(s)
	}
	var parts []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(l); l != "" && strings.Trim(l, "-") != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

// walk calls f on err and every error it wraps, depth first.
func walk(err error, f func(error)) {
	if err == nil {
		return
	}
	f(err)
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		walk(u.Unwrap(), f)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walk(e, f)
		}
	}
}

// find returns the first error of type T in err's tree, or the zero T.
func find[T error](err error) T {
	var found T
	var done bool
	walk(err, func(e error) {
		if t, ok := e.(T); ok && !done {
			found, done = t, true
		}
	})
	return found
}
