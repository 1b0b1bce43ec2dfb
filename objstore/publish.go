package objstore

import (
	"context"

	"github.com/fencedstore/fence/internal/cas"
	"github.com/fencedstore/fence/internal/format"
)

// publish writes the manifest that applies c on top of m (nil: the
// domain has none yet) with the one conditional update (internal/cas),
// re-reading and deciding again (see decide) until the write lands, the
// domain is fenced, or the update stops. Every failed write may have
// landed, so each one leaves c uncertain until a manifest read back
// settles it.
func (c *commit) publish(ctx context.Context, m *format.Manifest, etag string) (CommitResult, error) {
	p := &publication{c: c, first: true}
	up := cas.Update{
		Key:         format.ManifestKey(c.domain),
		ContentType: "application/json",
		Logger:      c.s.opts.Logger,
		LogAttrs:    []any{"domain", c.domain, "commit", c.id},
	}
	err := cas.Run(ctx, c.s.b, up, cas.Updater[*format.Manifest](p), m, etag)
	return p.res, err
}

// publication is one commit's side of the conditional update of its
// domain's manifest.
type publication struct {
	c     *commit
	first bool // c was decided on the first base before its upload
	next  *format.Manifest
	fresh bool // next is the domain's first manifest
	res   CommitResult
}

func (p *publication) Read(ctx context.Context) (*format.Manifest, string, error) {
	return p.c.s.loadManifest(ctx, p.c.domain)
}

func (p *publication) Decide(ctx context.Context, m *format.Manifest) (cas.Write, bool, error) {
	c, s := p.c, p.c.s
	if m != nil && !p.first {
		if res, err, done := c.decide(m); done {
			p.res = res
			return cas.Write{}, true, err
		}
	}
	p.first = false
	base := m
	if base == nil {
		base = &format.Manifest{}
	}
	entry := format.LogEntry{ID: c.id, Token: c.token, Holder: c.holder, Time: s.opts.Now().UTC()}
	entry.SetKeys(c.putKeys(), c.deletes)
	if c.attempt != c.id {
		entry.Attempt = c.attempt
	}
	next := base.Next(c.domain, c.token, entry, c.entries, c.deletes, s.opts.LogLimit)
	if s.spillNeeded(next) {
		if err := c.spill(ctx, next); err != nil {
			return cas.Write{}, true, c.fail(err)
		}
	}
	if next.NeedsFold() {
		folded, err := c.fold(ctx, next)
		if err != nil {
			return cas.Write{}, true, c.fail(err)
		}
		next = folded
	}
	body, err := newManifestBody(next)
	if err != nil {
		return cas.Write{}, true, c.fail(err)
	}
	p.next, p.fresh = next, m == nil
	return cas.Write{Body: body, Size: body.Size()}, false, nil
}

func (p *publication) Wrote(ctx context.Context, etag string) {
	c, s := p.c, p.c.s
	s.seen.note(p.next)
	s.cache.put(c.domain, p.next, etag)
	if p.fresh {
		s.writeFloor(ctx, p.next)
	}
	p.res = c.result(p.next, p.next.Last, false)
}

func (p *publication) Failed(m *format.Manifest, err error) {
	c := p.c
	var seq uint64
	if m != nil {
		seq = m.Seq
	}
	if !c.uncertain || seq < c.uncBase {
		c.uncBase = seq
	}
	c.uncertain, c.lastErr = true, err
	c.pending, c.pendingBase = true, seq
}

func (p *publication) Stop(err error) error { return p.c.fail(err) }

// putKeys returns the keys c puts.
func (c *commit) putKeys() []string {
	keys := make([]string, len(c.puts))
	for i, ch := range c.puts {
		keys[i] = ch.Key
	}
	return keys
}
