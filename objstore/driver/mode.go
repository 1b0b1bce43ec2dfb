package driver

// PutMode is a put's precondition: Overwrite, Create or Update. Exactly
// one holds, so a contradictory precondition cannot be written down.
type PutMode interface{ putMode() }

// Overwrite writes unconditionally.
type Overwrite struct{}

// Create writes only if no object exists at the key (If-None-Match: *).
type Create struct{}

// Update writes only if the object exists and its current ETag is ETag
// (If-Match). ETag is never empty.
type Update struct{ ETag string }

func (Overwrite) putMode() {}
func (Create) putMode()    {}
func (Update) putMode()    {}
