package serve

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fencedstore/fence/objstore"
)

// splitAdvice splits a corrupt manifest's error into what is wrong with
// this manifest (its object and the reason) and the advice that ends
// every such error, which the page then shows once, not in every row.
// Both are "" for another error, or when the message is not in the form
// objstore.CorruptManifestError gives it.
func splitAdvice(err error) (brief, advice string) {
	var ce *objstore.CorruptManifestError
	if !errors.As(err, &ce) {
		return "", ""
	}
	lead := fmt.Sprintf("objstore: corrupt manifest %q: %s", ce.Key, ce.Reason)
	if ce.Err != nil {
		lead += ": " + ce.Err.Error()
	}
	rest, ok := strings.CutPrefix(ce.Error(), lead+"; ")
	if !ok {
		return "", ""
	}
	return lead, rest
}

// Brief is the row's error without the advice the page shows once.
func (r DomainRow) Brief() string {
	if r.brief != "" {
		return r.brief
	}
	return r.Error
}
