package bench

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The CPU of the other processes on a gateway row's path: the gateway
// child's, and the store server's when it listens on this machine's
// loopback (the local MinIO of the test command), read from
// /proc/PID/stat around each call. With the client's own (Stats.CPU),
// they add up to what one operation costs the machine on each path,
// which is what a row on a machine whose cores the paths fill is bound
// by (docs/benchmarks.md, "Through the S3 gateway").

// userHZ is the unit of /proc/PID/stat's utime and stime: USER_HZ, 100
// on every Linux architecture Go supports.
const userHZ = 100

// pidCPU returns the user and system CPU time process pid has used, all
// threads together, or false when /proc has no such process.
func pidCPU(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, the 12th and 13th after it.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / userHZ, true
}

// loopbackListener returns the process listening on endpoint's port
// when endpoint is a loopback address (http://127.0.0.1:PORT), found
// through /proc/net/tcp and the processes' open sockets, or 0.
func loopbackListener(endpoint string) int {
	u, err := url.Parse(endpoint)
	if err != nil {
		return 0
	}
	host, port := u.Hostname(), u.Port()
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" {
		return 0
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return 0
	}
	want := fmt.Sprintf(":%04X", p)
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			// local_address is f[1], st f[3] ("0A": LISTEN), inode f[9].
			if len(f) > 9 && f[3] == "0A" && strings.HasSuffix(f[1], want) {
				inodes["socket:["+f[9]+"]"] = true
			}
		}
	}
	if len(inodes) == 0 {
		return 0
	}
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if link, err := os.Readlink(fd); err == nil && inodes[link] {
			pid, _ := strconv.Atoi(strings.Split(fd, "/")[2])
			return pid
		}
	}
	return 0
}

// pathCPU sums, over the timed calls of one side, the CPU of the
// gateway and store processes on its path.
type pathCPU struct {
	gatewayPID, storePID int // 0: not on this side's path, or unknown
	gateway, store       time.Duration
	n                    int
}

// measure runs op and, when the call is timed (i >= 0), adds what the
// processes used meanwhile.
func (p *pathCPU) measure(i int, op func() error) error {
	g0, _ := pidCPU(p.gatewayPID)
	s0, _ := pidCPU(p.storePID)
	err := op()
	if i < 0 || err != nil {
		return err
	}
	g1, _ := pidCPU(p.gatewayPID)
	s1, _ := pidCPU(p.storePID)
	p.gateway += g1 - g0
	p.store += s1 - s0
	p.n++
	return nil
}

// perOp sets st's per-operation gateway and store CPU.
func (p *pathCPU) perOp(st *Stats) {
	if p.n == 0 {
		return
	}
	if p.gatewayPID > 0 {
		st.GatewayCPU = p.gateway / time.Duration(p.n)
	}
	if p.storePID > 0 {
		st.StoreCPU = p.store / time.Duration(p.n)
	}
}
