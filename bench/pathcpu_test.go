package bench

import (
	"crypto/sha256"
	"net"
	"os"
	"runtime"
	"testing"
)

// TestPathCPU reads this process's CPU from /proc and finds this
// process as the listener of a loopback port it opened; an address off
// loopback, a port nothing listens on and a process that does not exist
// give nothing.
func TestPathCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("bench: the path's CPU is read from /proc, which only Linux has")
	}
	before, ok := pidCPU(os.Getpid())
	if !ok {
		t.Fatal("pidCPU: no figure for this process")
	}
	buf := make([]byte, 1<<20)
	for range 200 {
		sha256.Sum256(buf)
	}
	if after, _ := pidCPU(os.Getpid()); after <= before {
		t.Errorf("pidCPU: %v before 200 MiB of SHA-256, %v after", before, after)
	}
	if _, ok := pidCPU(0); ok {
		t.Error("pidCPU(0): want no figure")
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if got := loopbackListener("http://" + addr); got != os.Getpid() {
		t.Errorf("loopbackListener(%s) = %d, want this process, %d", addr, got, os.Getpid())
	}
	l.Close()
	if got := loopbackListener("http://" + addr); got != 0 {
		t.Errorf("loopbackListener(%s) after close = %d, want 0", addr, got)
	}
	if got := loopbackListener("https://s3.us-east-1.amazonaws.com"); got != 0 {
		t.Errorf("loopbackListener(AWS) = %d, want 0", got)
	}
}
