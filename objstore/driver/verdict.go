package driver

import "fmt"

// A VerdictCache keeps the verdicts of capability probes that passed
// beyond the process that ran them (see ProbeWith). Keys come from
// VerdictKey. objstore/probecache keeps them in files, per user and
// machine, for a set lifetime.
type VerdictCache interface {
	// Passed reports whether a probe of key passed within the cache's
	// lifetime.
	Passed(key string) bool
	// Pass records that a probe of key passed now.
	Pass(key string) error
	// Forget drops key's verdict, so that the next ProbeWith of it
	// probes.
	Forget(key string) error
}

// ProbeVersion names the checks Probe makes. It changes whenever they
// do, so that a verdict recorded by a build whose probe checked less
// is not taken for one of this build's.
const ProbeVersion = 1

// VerdictKey is what a probe of b judged: the probe's version, b's
// location and the encryption b's writes ask for (Probe checks that the
// store applies it).
func VerdictKey(b Backend) string {
	sse, kms := SSEOf(b)
	return fmt.Sprintf("fence-probe/%d %s sse=%q kms=%q", ProbeVersion, b.Location(), sse, kms)
}

// Distrust tells the verdict cache that the last probe of b's location
// used (if any) to forget its verdict: a write to b met an answer that
// the probe did not see the store give, so the next process to write
// there probes again. This process keeps its own verdict: the write's
// caller settles the write by reading back, as it does for any
// ambiguous answer.
func Distrust(b Backend) {
	v, ok := probes.Load(b.Location())
	if !ok {
		return
	}
	p := v.(*probeOnce)
	p.cmu.Lock()
	cache := p.cache
	p.cmu.Unlock()
	if cache != nil {
		_ = cache.Forget(VerdictKey(b))
	}
}
