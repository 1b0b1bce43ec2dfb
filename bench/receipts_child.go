package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// childCommitReceipts reads the receipts in File (JSON lines) and
// publishes them in one commit to Domain: the receipts case's large row.
// Bytes is the number of values the commit published.
const childCommitReceipts = "commitreceipts"

// runReceiptsChild is the childCommitReceipts child. The store's probe
// runs before the timer starts, so the time is the commit's own.
func runReceiptsChild(ctx context.Context, spec childSpec, b driver.Backend) (childResult, error) {
	f, err := os.Open(spec.File)
	if err != nil {
		return childResult{}, fmt.Errorf("bench: child: %w", err)
	}
	defer f.Close()
	var changes []objstore.Change
	dec := json.NewDecoder(bufio.NewReader(f))
	for {
		var rc objstore.Receipt
		if err := dec.Decode(&rc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return childResult{}, fmt.Errorf("bench: child: receipt %d of %s: %w", len(changes)+1, spec.File, err)
		}
		changes = append(changes, objstore.PutReceipt(rc))
	}
	if !spec.SkipProbe {
		if err := driver.Probe(ctx, b); err != nil {
			return childResult{}, err
		}
	}
	s := objstore.New(b, &objstore.Options{UploadParallelism: spec.UploadParallelism, SkipProbe: true})
	start := time.Now()
	c, err := s.Commit(ctx, spec.Domain, token, changes, nil)
	res := childResult{Elapsed: time.Since(start), Bytes: int64(len(c.Versions))}
	if err != nil {
		return res, err
	}
	res.PeakRSS, err = peakRSS()
	return res, err
}
