package format

import "time"

// A domain's floor marker, <domain>/_fence/floor.json (FloorKey), is
// written once, right after the domain's first manifest, and never
// deleted. It is durable evidence that the domain exists: if the manifest
// is ever lost, the marker makes every Store fail closed instead of
// reading the domain as new, where a stale holder's token would be
// accepted again. It records the token the domain was created at, a floor
// for the operator who restores it.

// FloorV1 is the format tag of floor markers.
const FloorV1 = "fence.floor/v1"

// Floor is the content of a floor marker.
type Floor struct {
	Format  string    `json:"format"`
	Domain  string    `json:"domain"`
	Token   uint64    `json:"token"`
	Created time.Time `json:"created"`
}
