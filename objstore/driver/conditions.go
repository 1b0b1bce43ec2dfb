package driver

// Conditions names a store's own mechanism for the put modes, for
// messages: what Create and Update send, and what a store must honour
// for fence to work on it.
type Conditions struct {
	// Create is the condition of a Create: "If-None-Match: *" on S3
	// and Azure, "ifGenerationMatch=0" on GCS.
	Create string
	// Update is the condition of an Update: "If-Match" with the ETag on
	// S3 and Azure, "ifGenerationMatch" with the generation on GCS.
	Update string
	// Needed completes "Use ...": what the store must support.
	Needed string
}

// S3Conditions are S3's conditional writes: the default.
var S3Conditions = Conditions{
	Create: "If-None-Match: *",
	Update: "If-Match",
	Needed: "a store that supports S3 conditional writes (If-None-Match: * and If-Match on PutObject and CompleteMultipartUpload)",
}

// ConditionNamer is implemented by backends whose conditional writes
// are not S3's.
type ConditionNamer interface {
	Conditions() Conditions
}

// ConditionsOf returns b's Conditions: S3Conditions unless b is a
// ConditionNamer.
func ConditionsOf(b Backend) Conditions {
	if n, ok := b.(ConditionNamer); ok {
		return n.Conditions()
	}
	return S3Conditions
}
