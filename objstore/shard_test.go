package objstore_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// checkDomain compares everything a reader can see of domain with model.
func checkDomain(t *testing.T, s *objstore.Store, domain string, model map[string]string) {
	t.Helper()
	ctx := context.Background()
	sn, err := s.Snapshot(ctx, domain)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sn.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, v := range vs {
		keys = append(keys, v.Key)
	}
	if want := slices.Sorted(maps.Keys(model)); !slices.Equal(keys, want) {
		t.Fatalf("list has %d keys, model %d; first differences: got %v want %v", len(keys), len(want), head(keys), head(want))
	}
	for k, want := range model {
		got, _, err := sn.ReadAll(ctx, k)
		if err != nil || string(got) != want {
			t.Fatalf("read %q = %q, %v; want %q", k, got, err, want)
		}
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

// TestShardedDomainMatchesModel drives a domain far past the overlay and
// shard bounds with random puts and deletes and checks, after every
// commit batch, that readers see exactly the model.
func TestShardedDomainMatchesModel(t *testing.T) {
	ctx := context.Background()
	s := objstore.New(memstore.New(), nil)
	rng := rand.New(rand.NewPCG(1, 2))
	model := map[string]string{}
	tombstones := 0
	for round := range 60 {
		n := 1 + rng.IntN(120)
		seen := map[string]bool{}
		var changes []objstore.Change
		for range n {
			k := fmt.Sprintf("part/%04d.csv", rng.IntN(3000))
			if seen[k] {
				continue
			}
			seen[k] = true
			if _, live := model[k]; live && rng.IntN(4) == 0 {
				changes = append(changes, objstore.DeleteKey(k))
				delete(model, k)
				continue
			}
			v := fmt.Sprintf("%s r%d", k, round)
			changes = append(changes, objstore.PutBytes(k, []byte(v)))
			model[k] = v
		}
		if _, err := s.Commit(ctx, "big", uint64(1+round/10), changes, nil); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if round%5 == 4 {
			checkDomain(t, s, "big", model)
			m, _ := format.ReadManifest(ctx, s.Backend(), "big")
			for _, e := range m.Keys {
				if e.Deleted {
					tombstones++
				}
			}
		}
	}
	m, err := format.ReadManifest(ctx, s.Backend(), "big")
	if err != nil {
		t.Fatal(err)
	}
	if tombstones == 0 {
		t.Fatal("no check saw a tombstone in the overlay; the test did not exercise deletes over shards")
	}
	if len(m.Shards) < 2 || (m.Format != format.ManifestV2 && m.Format != format.ManifestV4) {
		t.Fatalf("%d live keys kept in %d shards (format %s); the test did not exercise splitting", len(model), len(m.Shards), m.Format)
	}
	// A fresh reader (nothing cached) sees the same.
	checkDomain(t, objstore.New(s.Backend(), nil), "big", model)
	t.Logf("%d live keys, %d shards, %d overlay entries", len(model), len(m.Shards), len(m.Keys))
}

// TestLargeDomainCommitCost: once a domain is kept in shards, a small
// commit writes the manifest only (its value inline), or with inline
// values off the version and the manifest, and the manifest stays small,
// whatever the number of keys.
func TestLargeDomainCommitCost(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *objstore.Options
		puts int64
	}{{"inline", nil, 1}, {"versions", versionsOnly, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			mem := memstore.New()
			fb := faulty.New(mem)
			s := objstore.New(fb, tc.opts)
			var changes []objstore.Change
			for i := range 10000 {
				changes = append(changes, objstore.PutBytes(fmt.Sprintf("k%05d", i), []byte("x")))
			}
			if _, err := s.Commit(ctx, "d", 1, changes, nil); err != nil {
				t.Fatal(err)
			}
			puts := fb.Calls(faulty.OpPut)
			if _, err := s.Put(ctx, "d", "hot", 1, strings.NewReader("1"), 1); err != nil {
				t.Fatal(err)
			}
			if n := fb.Calls(faulty.OpPut) - puts; n != tc.puts {
				t.Fatalf("small commit on a 10,000-key domain made %d puts, want %d", n, tc.puts)
			}
			rc, info, err := mem.Get(ctx, format.ManifestKey("d"), driver.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rc.Close()
			if info.Size > 16<<10 {
				t.Fatalf("manifest of a 10,000-key domain is %d bytes", info.Size)
			}
		})
	}
}

// TestV1ManifestMigrates: a v1 manifest holding more keys than the
// overlay bound, as older builds wrote, is read as it is and folded into
// shards by the next commit; small domains stay v1, so builds that read
// only v1 keep reading them.
func TestV1ManifestMigrates(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	s := objstore.New(mem, versionsOnly)
	model := map[string]string{}
	var changes []objstore.Change
	for i := range 200 {
		k := fmt.Sprintf("k%03d", i)
		changes = append(changes, objstore.PutBytes(k, []byte(k)))
		model[k] = k
	}
	if _, err := s.Commit(ctx, "d", 1, changes, nil); err != nil {
		t.Fatal(err)
	}
	m, _ := format.ReadManifest(ctx, s.Backend(), "d")
	if m.Format != format.ManifestV1 || len(m.Shards) != 0 {
		t.Fatalf("small domain written as %s with %d shards", m.Format, len(m.Shards))
	}
	// An older build's v1 manifest with 400 keys, written by hand.
	for i := 200; i < 400; i++ {
		k := fmt.Sprintf("k%03d", i)
		obj := format.VersionKey("d", k, 1, "old")
		if _, err := mem.Put(ctx, obj, strings.NewReader(k), int64(len(k)), driver.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(k))
		m.Keys[k] = format.Entry{Version: obj, Size: int64(len(k)), SHA256: hex.EncodeToString(sum[:]), Token: 1}
		model[k] = k
	}
	data, err := format.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	mem.Corrupt(format.ManifestKey("d"), data)
	old := objstore.New(mem, versionsOnly)
	checkDomain(t, old, "d", model)
	// The next commit folds it.
	if _, err := old.Put(ctx, "d", "k400", 1, strings.NewReader("k400"), 4); err != nil {
		t.Fatal(err)
	}
	model["k400"] = "k400"
	if m, _ := format.ReadManifest(ctx, old.Backend(), "d"); m.Format != format.ManifestV2 || len(m.Keys) != 0 {
		t.Fatalf("after the next commit: %s with %d overlay entries", m.Format, len(m.Keys))
	}
	checkDomain(t, objstore.New(mem, nil), "d", model)
}

// TestCorruptShardFailsClosed: a shard that is missing or whose bytes do
// not match its name is refused, naming the shard.
func TestCorruptShardFailsClosed(t *testing.T) {
	ctx := context.Background()
	for _, damage := range []string{"tampered", "missing"} {
		t.Run(damage, func(t *testing.T) {
			mem := memstore.New()
			s := objstore.New(mem, nil)
			var changes []objstore.Change
			for i := range 600 {
				changes = append(changes, objstore.PutBytes(fmt.Sprintf("k%03d", i), []byte("x")))
			}
			if _, err := s.Commit(ctx, "d", 1, changes, nil); err != nil {
				t.Fatal(err)
			}
			m, _ := format.ReadManifest(ctx, s.Backend(), "d")
			victim := m.Shards[0].Object
			if damage == "tampered" {
				mem.Corrupt(victim, []byte(`{"format":"fence.shard/v1","domain":"d","prefix":"0","keys":{}}`))
			} else {
				mem.Delete(ctx, victim)
			}
			fresh := objstore.New(mem, nil)
			sn, err := fresh.Snapshot(ctx, "d")
			if err != nil {
				t.Fatal(err)
			}
			_, err = sn.List(ctx, nil)
			var ce *objstore.CorruptManifestError
			if !errors.As(err, &ce) || ce.Key != victim {
				t.Fatalf("list over a %s shard: %v, want a corrupt-manifest error naming %q", damage, err, victim)
			}
		})
	}
}
