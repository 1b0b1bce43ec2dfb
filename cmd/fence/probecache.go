package main

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/probecache"
)

// envProbeCache sets how long a passed capability probe is trusted by
// later fence processes of the same user on this machine: unset, the
// default lifetime; a duration; 0 or off for none (every process
// probes).
const envProbeCache = "FENCE_PROBE_CACHE"

// probeCache resolves FENCE_PROBE_CACHE into the verdict cache of this
// process, in fence/probe under the user's cache directory
// ($XDG_CACHE_HOME, else $HOME/.cache). nil when it is off, or when
// there is no cache directory to keep it in (said at debug level: the
// store is then probed as before).
func (a *app) probeCache() (driver.VerdictCache, error) {
	lifetime := probecache.DefaultLifetime
	switch v := strings.TrimSpace(a.getenv(envProbeCache)); v {
	case "":
	case "0", "off":
		return nil, nil
	default:
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, usage("%s=%q: want a duration such as 1h or 30m, or 0 or off to probe in every process", envProbeCache, v)
		}
		if d == 0 {
			return nil, nil
		}
		lifetime = d
	}
	base := a.getenv("XDG_CACHE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home := a.getenv("HOME")
		if home == "" {
			a.logger.Debug("capability probe verdicts are not cached: neither XDG_CACHE_HOME nor HOME is set")
			return nil, nil
		}
		base = filepath.Join(home, ".cache")
	}
	c, err := probecache.Open(filepath.Join(base, "fence", "probe"), lifetime, time.Now)
	if err != nil {
		a.logger.Debug("capability probe verdicts are not cached", "err", err)
		return nil, nil
	}
	return c, nil
}
