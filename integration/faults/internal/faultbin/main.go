// Command faultbin is the child process of the fault suite
// (integration/faults). It is built by the suite without the race
// detector and never shipped:
//
//	faultbin writer CONFIG.json   a lease holder looping acquire, commits, release
//	faultbin reader CONFIG.json   snapshot readers
//	faultbin gc CONFIG.json       a garbage collector looping Collect with grace 0
//	faultbin proxy CONFIG.json    toxiproxy and an HTTP fault layer
//
// Writers and readers append their operations to a history file (see
// package hist). A writer stops cleanly on SIGTERM: it finishes the
// operation in flight, releases its lease and exits 0.
package main

import (
	"fmt"
	"os"

	"github.com/fencedstore/fence/integration/faults/internal/spec"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: faultbin writer|reader|gc|proxy CONFIG.json")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "writer":
		var cfg spec.Writer
		if err = spec.Load(os.Args[2], &cfg); err == nil {
			err = runWriter(cfg)
		}
	case "reader":
		var cfg spec.Reader
		if err = spec.Load(os.Args[2], &cfg); err == nil {
			err = runReader(cfg)
		}
	case "gc":
		var cfg spec.GC
		if err = spec.Load(os.Args[2], &cfg); err == nil {
			err = runGC(cfg)
		}
	case "proxy":
		var cfg spec.Proxy
		if err = spec.Load(os.Args[2], &cfg); err == nil {
			err = runProxy(cfg)
		}
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "faultbin %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
