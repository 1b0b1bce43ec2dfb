package faults

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
)

// The porcupine model of the fenced register. One partition per domain:
// the state is the domain's highest accepted token, its manifest seq and
// the value of each key. A second partition per domain checks token
// issuance: every issued token is greater than every token issued before
// it in real time.

const maxKeys = 4

type regState struct {
	H, Seq uint64
	V      [maxKeys]string
}

type regKind uint8

const (
	kWrite    regKind = iota + 1 // a fence or commit that wrote the manifest at Seq
	kNoop                        // a fence that found its token already the highest
	kFenced                      // rejected: the token is below the highest
	kRead                        // a snapshot read
	kNotFound                    // a read that found no manifest
)

type regIn struct {
	Kind  regKind
	Fence bool // a fence (no data) rather than a commit
	// Claimed: a fence, or a NoFence holder's commit, refused because
	// another commit had raised the domain to its very token (the
	// coordinator issued it twice).
	Claimed bool
	Token   uint64
	Puts    [maxKeys]string
	Mask    uint8 // which Puts are set
	Label   string
}

type regOut struct {
	Seq, Highest uint64
	V            [maxKeys]string
}

func regStep(s regState, in regIn, out regOut) (bool, regState) {
	switch in.Kind {
	case kWrite:
		if in.Token < s.H || (in.Fence && in.Token == s.H) || out.Seq != s.Seq+1 {
			return false, s
		}
		n := s
		n.H, n.Seq = max(s.H, in.Token), out.Seq
		for i := range maxKeys {
			if in.Mask&(1<<i) != 0 {
				n.V[i] = in.Puts[i]
			}
		}
		return true, n
	case kNoop:
		return in.Token == s.H, s
	case kFenced:
		return (in.Token < s.H || (in.Claimed && in.Token == s.H)) && out.Highest <= s.H, s
	case kRead:
		return out.Seq == s.Seq && out.Highest == s.H && out.V == s.V, s
	case kNotFound:
		return s.Seq == 0, s
	}
	return false, s
}

var registerModel = porcupine.Model{
	Init: func() any { return regState{} },
	Step: func(state, input, output any) (bool, any) {
		return regStep(state.(regState), input.(regIn), output.(regOut))
	},
	Equal: func(a, b any) bool { return a.(regState) == b.(regState) },
	DescribeOperation: func(input, output any) string {
		in, out := input.(regIn), output.(regOut)
		switch in.Kind {
		case kWrite:
			return fmt.Sprintf("%s t=%d -> seq %d", in.Label, in.Token, out.Seq)
		case kNoop:
			return fmt.Sprintf("%s t=%d -> no-op", in.Label, in.Token)
		case kFenced:
			if in.Claimed {
				return fmt.Sprintf("%s t=%d -> refused, token claimed by another commit (highest %d)", in.Label, in.Token, out.Highest)
			}
			return fmt.Sprintf("%s t=%d -> fenced (highest %d)", in.Label, in.Token, out.Highest)
		case kRead:
			return fmt.Sprintf("%s -> seq %d, highest %d, %s", in.Label, out.Seq, out.Highest, describeValues(out.V))
		default:
			return in.Label + " -> no manifest"
		}
	},
	DescribeState: func(state any) string {
		s := state.(regState)
		return fmt.Sprintf("highest %d, seq %d, %s", s.H, s.Seq, describeValues(s.V))
	},
}

func describeValues(v [maxKeys]string) string {
	var parts []string
	for i, s := range v {
		if s != "" {
			if j := strings.Index(s, ":after="); j > 0 {
				s = s[:j]
			}
			parts = append(parts, fmt.Sprintf("k%d=%s", i, s))
		}
	}
	return "{" + strings.Join(parts, " ") + "}"
}

var tokenModel = porcupine.Model{
	Init: func() any { return uint64(0) },
	Step: func(state, input, output any) (bool, any) {
		t := output.(uint64)
		return t > state.(uint64), t
	},
	DescribeOperation: func(input, output any) string {
		return fmt.Sprintf("%s issued %d", input.(string), output.(uint64))
	},
	DescribeState: func(state any) string { return fmt.Sprintf("last issued %d", state.(uint64)) },
}

// partition is one porcupine partition of a run's history.
type partition struct {
	name  string
	model porcupine.Model
	ops   []porcupine.Operation
}

// partitions builds the register partition of every domain from the
// resolved operations reg, and the token partition from h's issues.
func partitions(reg []*op, h *history, domains, keys []string) []partition {
	clients := map[string]int{}
	cid := func(name string) int {
		if i, ok := clients[name]; ok {
			return i
		}
		clients[name] = len(clients)
		return clients[name]
	}
	keyIdx := map[string]int{}
	for i, k := range keys {
		keyIdx[k] = i
	}
	byDomain := map[string][]porcupine.Operation{}
	for _, o := range reg {
		in := regIn{Token: o.In.Token}
		var out regOut
		switch o.Op {
		case hist.OpAcquire:
			in.Fence, in.Label = true, o.Client+" fence"
			switch {
			case o.applied && o.seq > 0:
				in.Kind, out.Seq = kWrite, o.seq
			case o.applied:
				in.Kind = kNoop
			default:
				in.Kind, out.Highest = kFenced, o.Out.Highest
				in.Claimed = o.Out.ClaimedBy != ""
			}
		case hist.OpCommit:
			in.Label = o.In.Tag + " commit"
			for k, v := range o.In.Puts {
				i := keyIdx[k]
				in.Puts[i] = v
				in.Mask |= 1 << i
			}
			if o.applied {
				in.Kind, out.Seq = kWrite, o.seq
			} else {
				in.Kind, out.Highest = kFenced, o.Out.Highest
				// A NoFence holder's commit refused because another
				// commit had raised the domain to its very token.
				in.Claimed = o.Out.ClaimedBy != ""
			}
		case hist.OpRead:
			in.Label = o.Client + " read"
			if o.Outcome == hist.NotFound {
				in.Kind = kNotFound
			} else {
				in.Kind, out.Seq, out.Highest = kRead, o.Out.Seq, o.Out.Highest
				for k, v := range o.Out.Values {
					out.V[keyIdx[k]] = v
				}
			}
		}
		byDomain[o.In.Domain] = append(byDomain[o.In.Domain], porcupine.Operation{
			ClientId: cid(o.Client), Input: in, Output: out, Call: o.Call, Return: o.retBound,
		})
	}
	tokens := map[string][]porcupine.Operation{}
	for _, o := range h.ops {
		if o.Op == hist.OpIssue && o.Outcome == hist.OK {
			tokens[o.In.Domain] = append(tokens[o.In.Domain], porcupine.Operation{
				ClientId: cid(o.Client), Input: o.Client, Output: o.Out.Token, Call: o.Call, Return: o.Return,
			})
		}
	}
	var out []partition
	for _, d := range domains {
		out = append(out, partition{name: "register " + d, model: registerModel, ops: byDomain[d]})
	}
	for _, d := range domains {
		out = append(out, partition{name: "tokens " + d, model: tokenModel, ops: tokens[d]})
	}
	return out
}

// verdict is porcupine's answer for one partition.
type verdict struct {
	Partition string  `json:"partition"`
	Ops       int     `json:"ops"`
	Result    string  `json:"result"` // ok, illegal, unknown (timed out)
	Seconds   float64 `json:"check_seconds"`
	Explain   string  `json:"explain,omitempty"` // where an illegal check got stuck
	info      porcupine.LinearizationInfo
	model     porcupine.Model
}

// check runs porcupine on each partition, with a timeout for each.
func check(parts []partition, timeout time.Duration) []verdict {
	var out []verdict
	for _, p := range parts {
		sort.SliceStable(p.ops, func(i, j int) bool { return p.ops[i].Call < p.ops[j].Call })
		start := time.Now()
		res, info := porcupine.CheckOperationsVerbose(p.model, p.ops, timeout)
		v := verdict{Partition: p.name, Ops: len(p.ops), Seconds: time.Since(start).Seconds(), info: info, model: p.model}
		switch res {
		case porcupine.Ok:
			v.Result = "ok"
		case porcupine.Illegal:
			v.Result = "illegal"
			v.Explain = explain(v, p.ops)
		default:
			v.Result = "unknown"
		}
		out = append(out, v)
	}
	return out
}

// explain describes where porcupine got stuck on an illegal partition:
// the state after its longest partial linearization and the operations
// it could not place next.
func explain(v verdict, ops []porcupine.Operation) string {
	parts := v.info.PartialLinearizationsOperations()
	if len(parts) == 0 {
		return ""
	}
	var longest []porcupine.Operation
	for _, p := range parts[0] {
		if len(p) > len(longest) {
			longest = p
		}
	}
	m := v.model
	state := m.Init()
	done := map[int64]map[int]bool{}
	for _, o := range longest {
		_, state = m.Step(state, o.Input, o.Output)
		if done[o.Call] == nil {
			done[o.Call] = map[int]bool{}
		}
		done[o.Call][o.ClientId] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "after %d of %d operations the state is %s; next:", len(longest), len(ops), m.DescribeState(state))
	n := 0
	for _, o := range ops {
		if done[o.Call][o.ClientId] {
			continue
		}
		fmt.Fprintf(&b, "\n      %s [call %.3fs, return %.3fs]", m.DescribeOperation(o.Input, o.Output), float64(o.Call)/1e9, float64(o.Return)/1e9)
		if n++; n == 4 {
			break
		}
	}
	return b.String()
}
