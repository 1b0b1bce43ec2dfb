//go:build !unix

package job

import (
	"errors"
	"io"
	"os"
	"time"
)

// errUnsupported: process groups are a Unix notion.
var errUnsupported = errors.New("job: running a command under a lease needs process groups (Unix only)")

type group struct{ err error }

func startGroup([]string, []string, io.Reader, io.Writer, io.Writer) (*group, error) {
	return nil, errUnsupported
}

func (*group) supervise(<-chan struct{}, <-chan os.Signal, time.Duration) (int, bool, os.Signal) {
	return -1, false, nil
}

func (*group) killedBy() os.Signal { return nil }
