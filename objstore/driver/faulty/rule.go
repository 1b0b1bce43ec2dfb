package faulty

import (
	"context"

	"github.com/fencedstore/fence/objstore/driver"
)

// Op names a Backend method, as a rule sees it.
type Op string

// The operations a rule can match.
const (
	OpGet    Op = "get"
	OpHead   Op = "head"
	OpPut    Op = "put"
	OpDelete Op = "delete"
	OpList   Op = "list"
)

// Call describes one call, as a rule sees it. For OpList, Key is the
// prefix. Opts is set only for OpPut.
type Call struct {
	Op   Op
	Key  string
	Opts driver.PutOptions
}

// Hook decides the Fault of one call with arbitrary code. ctx is the
// call's context.
type Hook func(ctx context.Context, c Call) Fault

// Rule picks the calls it applies to and the Fault they get. Every field
// that is set must match; the zero Rule matches every call, once.
type Rule struct {
	// Op is the operation; "" matches any.
	Op Op
	// Key is the exact key (the prefix, for OpList); "" matches any.
	Key string
	// Mode, when set, matches puts whose mode is of the same kind:
	// Overwrite (a nil mode included), Create, or Update whatever its
	// ETag. It matches no other operation.
	Mode driver.PutMode
	// Match, when set, must also hold. It is called with the Backend's
	// lock held, so it must not call the Backend.
	Match func(Call) bool
	// Skip lets this many matching calls through before the rule fires.
	Skip int
	// Every makes the rule fire on every matching call after Skip;
	// otherwise it fires once and is removed.
	Every bool
	// Fault is what the matched call gets, unless Func is set.
	Fault Fault
	// Func, when set, decides the matched call's Fault instead. It is
	// called without the Backend's lock, so it may call the Backend.
	Func Hook
}

// Once returns a rule that gives f to the first call of op on key (""
// matches any key).
func Once(op Op, key string, f Fault) Rule { return Rule{Op: op, Key: key, Fault: f} }

// Always returns a rule that gives f to every call of op on key (""
// matches any key).
func Always(op Op, key string, f Fault) Rule {
	return Rule{Op: op, Key: key, Every: true, Fault: f}
}

// FailNext returns a rule that fails the next call of op on key (""
// matches any key) with err, without applying it.
func FailNext(op Op, key string, err error) Rule { return Once(op, key, Fault{Err: err}) }

// Func returns a rule that lets h decide the Fault of every call.
func Func(h Hook) Rule { return Rule{Every: true, Func: h} }

func (r *Rule) matches(c Call) bool {
	switch {
	case r.Op != "" && r.Op != c.Op:
		return false
	case r.Key != "" && r.Key != c.Key:
		return false
	case r.Mode != nil && (c.Op != OpPut || modeKind(r.Mode) != modeKind(c.Opts.Mode)):
		return false
	case r.Match != nil && !r.Match(c):
		return false
	}
	return true
}

// modeKind is 0 for Overwrite (and a nil mode), 1 for Create and 2 for
// Update.
func modeKind(m driver.PutMode) int {
	switch m.(type) {
	case driver.Create:
		return 1
	case driver.Update:
		return 2
	}
	return 0
}
