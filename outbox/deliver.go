package outbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
)

// A Deliverer delivers one record. It must treat a second delivery of a
// record with the same Key as the same effect (or pass the key on to a
// receiver that does): delivery is at least once. An error leaves the
// record pending for the next dispatch; a *PermanentError says no retry
// can succeed, and Dispatch reports it without retrying in the same run.
type Deliverer interface {
	Deliver(ctx context.Context, r Record) error
}

// PermanentError is a delivery the destination refused for good (an
// HTTP 4xx other than 408 and 429, say).
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// HTTPDeliverer POSTs the payload to the record's destination URL with
// the idempotency key in an Idempotency-Key header. A 2xx answer is a
// delivery; 408, 429 and 5xx, or no answer, are retried by a later
// dispatch; another 4xx is a PermanentError.
type HTTPDeliverer struct {
	// Client sends the requests; default http.DefaultClient.
	Client *http.Client
}

func (d HTTPDeliverer) Deliver(ctx context.Context, r Record) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.Destination, bytes.NewReader(r.Payload))
	if err != nil {
		return &PermanentError{Err: fmt.Errorf("outbox: destination %q: %w", r.Destination, err)}
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &PermanentError{Err: fmt.Errorf("outbox: destination %q: HTTPDeliverer sends to http:// and https:// URLs only", r.Destination)}
	}
	ct := r.ContentType
	if ct == "" {
		ct = "application/json"
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Idempotency-Key", r.Key)
	c := d.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("outbox: deliver %s to %s: %w", r.Key, req.URL.Redacted(), err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch {
	case resp.StatusCode/100 == 2:
		return nil
	case resp.StatusCode == http.StatusRequestTimeout, resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode >= 500:
		return fmt.Errorf("outbox: deliver %s to %s: %s: %s", r.Key, req.URL.Redacted(), resp.Status, bytes.TrimSpace(body))
	}
	return &PermanentError{Err: fmt.Errorf("outbox: deliver %s to %s: %s: %s", r.Key, req.URL.Redacted(), resp.Status, bytes.TrimSpace(body))}
}
