//go:build !unix

package job

import (
	"errors"
	"os"
	"os/exec"
	"time"

	"github.com/fencedstore/fence/coord"
)

// errUnsupported: process groups are a Unix notion.
var errUnsupported = errors.New("job: running a command under a lease needs process groups (Unix only)")

type group struct{}

func startGroup(*exec.Cmd) (*group, error) { return nil, errUnsupported }

func (*group) supervise(*coord.Session, <-chan os.Signal, time.Duration) (int, error) {
	return -1, errUnsupported
}
