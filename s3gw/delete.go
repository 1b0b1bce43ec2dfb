package s3gw

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/s3gw/wire"
)

// maxXMLBody bounds the XML bodies the gateway reads (DeleteObjects,
// CompleteMultipartUpload): 1,000 keys of 1,024 bytes, or 10,000 parts,
// fit with room to spare.
const maxXMLBody = 4 << 20

// maxDeleteKeys is S3's limit on the keys of one DeleteObjects.
const maxDeleteKeys = 1000

// deleteObject answers DeleteObject: the key is gone for the job's reads
// at once, and from the domain with the job's commit.
func (g *Gateway) deleteObject(q *request) {
	done, ok := g.admit(q)
	if !ok {
		return
	}
	defer done()
	if e := g.remove(q.r.Context(), []string{q.t.key}); e != nil {
		q.fail(e)
		return
	}
	q.w.WriteHeader(http.StatusNoContent)
}

// remove deletes keys: tombstones until the end (discarding what the job
// staged for them), or one commit now.
func (g *Gateway) remove(ctx context.Context, keys []string) *wire.Error {
	if e := g.stillWriting(); e != nil {
		return e
	}
	if g.o.Commit == CommitEach {
		changes := make([]objstore.Change, len(keys))
		for i, k := range keys {
			changes[i] = objstore.DeleteKey(k)
		}
		if _, err := g.o.Store.Commit(ctx, g.o.Domain, g.o.Token, changes, &objstore.CommitOptions{Holder: g.o.Holder}); err != nil {
			return g.storeError("delete", err)
		}
		g.mu.Lock()
		for _, k := range keys {
			delete(g.known, k)
		}
		g.mu.Unlock()
		return nil
	}
	now := g.o.Now().UTC()
	g.mu.Lock()
	for _, k := range keys {
		if st := g.staged[k]; st != nil {
			g.drop(st)
			delete(g.staged, k)
		}
		g.deleted[k] = now
	}
	g.mu.Unlock()
	return nil
}

// readXML reads a small request body, checked as wire checks every body
// (Content-MD5, a checksum, a signed payload), into v.
func (q *request) readXML(v any) *wire.Error {
	body, _, e := q.openBody(wire.BodyOptions{})
	if e != nil {
		return e
	}
	data, err := io.ReadAll(io.LimitReader(body, maxXMLBody+1))
	if err != nil {
		return wire.AsError(err)
	}
	if len(data) > maxXMLBody {
		return wire.Errorf(wire.CodeMalformedXML, "the XML body is over the gateway's limit of %d bytes", maxXMLBody)
	}
	if _, err := body.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && err != nil {
		return wire.AsError(err)
	}
	if err := xml.Unmarshal(data, v); err != nil {
		return wire.Errorf(wire.CodeMalformedXML, "The XML you provided was not well-formed or did not validate against our published schema: %v", err)
	}
	return nil
}

// deleteObjects answers DeleteObjects: its keys in the domain are
// deleted together (one commit with CommitEach); a key outside it gets
// its own AccessDenied entry and stops nothing else.
func (g *Gateway) deleteObjects(q *request) {
	done, ok := g.admit(q)
	if !ok {
		return
	}
	defer done()
	var req deleteRequest
	if e := q.readXML(&req); e != nil {
		q.fail(e)
		return
	}
	if len(req.Objects) == 0 || len(req.Objects) > maxDeleteKeys {
		q.fail(wire.Errorf(wire.CodeMalformedXML, "a DeleteObjects request names 1 to %d keys; this one names %d", maxDeleteKeys, len(req.Objects)))
		return
	}
	res := deleteResult{NS: s3NS}
	var keys, s3keys []string
	for _, o := range req.Objects {
		k, e := g.domainKey(o.Key)
		if e == nil && o.VersionID != "" {
			e = wire.Errorf(wire.CodeNotImplemented, "fence: the gateway keeps no S3 versions")
		}
		if e != nil {
			res.Errors = append(res.Errors, deleteErrorXML{Key: o.Key, Code: e.Code, Message: e.Message})
			continue
		}
		keys, s3keys = append(keys, k), append(s3keys, o.Key)
	}
	if len(keys) > 0 {
		if e := g.remove(q.r.Context(), keys); e != nil {
			for _, k := range s3keys {
				res.Errors = append(res.Errors, deleteErrorXML{Key: k, Code: e.Code, Message: e.Message})
			}
		} else if !req.Quiet {
			for _, k := range s3keys {
				res.Deleted = append(res.Deleted, deletedXML{Key: k})
			}
		}
	}
	q.xml(res)
}
