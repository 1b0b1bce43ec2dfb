package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/memstore"
)

// runWith runs the CLI in this process with every store URL opening b.
func runWith(t *testing.T, b driver.Backend, env map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader("data"), &out, &errb)
	a.getenv = func(k string) string { return env[k] }
	a.openBackend = func(context.Context, string) (driver.Backend, error) { return b, nil }
	code := a.run(t.Context(), append([]string{"--store", "mem://unsafe"}, args...))
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// A store that ignores conditional writes is refused, exit 1, before
// anything is written, lease records included; --unsafe-skip-probe (or
// FENCE_UNSAFE_SKIP_PROBE=1) writes anyway, with a warning.
func TestUnsafeStoreRefused(t *testing.T) {
	for _, args := range [][]string{
		{"put", "d", "k", "-", "--token", "1"},
		{"lease", "acquire", "d"},
		{"lease", "acquire", "d", "--no-fence"},
		{"lease", "release", "d", "--token", "1"},
		{"demo"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			mem := memstore.New()
			r := runWith(t, drivertest.IgnoreConditions(mem), nil, args...)
			if r.code != exitError {
				t.Fatalf("want exit 1, got %s", r)
			}
			for _, want := range []string{"objstore: store ignores conditional writes", "at ignoring+mem://", "--unsafe-skip-probe", "NOT be fenced"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr %q does not contain %q", r.stderr, want)
				}
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			if keys := mem.Keys(); len(keys) != 0 {
				t.Errorf("the refused store was written to: %q", keys)
			}
		})
	}
}

func TestUnsafeSkipProbe(t *testing.T) {
	const warning = "fence: WARNING: --unsafe-skip-probe"
	for name, tt := range map[string]struct {
		env  map[string]string
		args []string
	}{
		"flag":      {nil, []string{"--unsafe-skip-probe"}},
		"env":       {map[string]string{envSkipProbe: "1"}, nil},
		"env true":  {map[string]string{envSkipProbe: "true"}, nil},
		"flag wins": {map[string]string{envSkipProbe: "0"}, []string{"--unsafe-skip-probe=true"}},
	} {
		t.Run(name, func(t *testing.T) {
			mem := memstore.New()
			if r := runWith(t, drivertest.IgnoreConditions(mem), tt.env, append(tt.args, "lease", "acquire", "d")...); r.code != 0 {
				t.Fatalf("acquire with the probe skipped: %s", r)
			}
			r := runWith(t, drivertest.IgnoreConditions(mem), tt.env, append(tt.args, "put", "d", "k", "-", "--token", "1")...)
			if r.code != 0 {
				t.Fatalf("put with the probe skipped: %s", r)
			}
			if strings.Count(r.stderr, warning) != 1 {
				t.Errorf("stderr %q does not hold the warning once", r.stderr)
			}
			if len(mem.Keys()) == 0 {
				t.Error("nothing was written")
			}
			// Reading writes nothing and warns of nothing.
			r = runWith(t, drivertest.IgnoreConditions(mem), tt.env, append(tt.args, "get", "d", "k")...)
			if r.code != 0 || r.stdout != "data" || r.stderr != "" {
				t.Errorf("get: %s", r)
			}
		})
	}
	// The flag set to false wins over the environment.
	r := runWith(t, drivertest.IgnoreConditions(memstore.New()), map[string]string{envSkipProbe: "1"}, "--unsafe-skip-probe=false", "put", "d", "k", "-", "--token", "1")
	if r.code != exitError || strings.Contains(r.stderr, warning) {
		t.Errorf("--unsafe-skip-probe=false with %s=1: %s", envSkipProbe, r)
	}
	r = runWith(t, drivertest.IgnoreConditions(memstore.New()), map[string]string{envSkipProbe: "maybe"}, "put", "d", "k", "-", "--token", "1")
	if r.code != exitUsage || !strings.Contains(r.stderr, envSkipProbe) {
		t.Errorf("%s=maybe: %s", envSkipProbe, r)
	}
}

// A store that honours conditional writes is probed once and used; no
// warning is printed.
func TestSafeStoreProbed(t *testing.T) {
	mem := memstore.New()
	r := runWith(t, mem, nil, "lease", "acquire", "d")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("lease acquire: %s", r)
	}
	for _, k := range mem.Keys() {
		if strings.HasPrefix(k, "_fence/probe/") {
			t.Errorf("probe object %q left behind", k)
		}
	}
}
