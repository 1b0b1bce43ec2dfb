// Package faults proves fence under faults, the way Jepsen and etcd's
// robustness tests do: real writer, reader and garbage-collector
// processes (built from internal/faultbin) against a real MinIO and a real
// dynalite, one injected fault kind per run, every operation recorded, and
// the history checked by a porcupine model of the fenced register and by
// direct invariant checks (I1 to I11, X1 to X3). Deliberately broken
// variants run alongside as negative controls and must be caught in every
// run.
//
// The package has no API: everything is in its tests. See docs/faults.md
// for what each fault does, what the checks mean, the report's fields, and
// how to replay a seed.
package faults
