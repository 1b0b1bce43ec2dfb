package bench

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/objstore/driver"
)

func describeBackend(b driver.Backend) string {
	return b.Location()
}

func describeCoordinator(c *coord.Coordinator) string {
	switch d := c.Driver().(type) {
	case *bucketlease.Driver:
		return "bucket leases in " + describeBackend(d.Backend())
	case *dynamocoord.Driver:
		return "DynamoDB table " + d.Table()
	}
	return fmt.Sprintf("%T", c.Driver())
}

func machine() Machine {
	return Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), MemTotal: memTotal(), GoVersion: runtime.Version(), LoadAvg: loadAvg(), Revision: revision()}
}

// loadAvg returns the 1, 5 and 15 minute load averages, or "".
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// revision returns the VCS revision the binary was built from, or "".
func revision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "+dirty"
	}
	return rev
}

// memTotal returns the machine's memory from /proc/meminfo, or 0.
func memTotal() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	return procKiB(data, "MemTotal:")
}
