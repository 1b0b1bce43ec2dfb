package main

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressMin is the smallest transfer of known size that shows a
// progress bar.
const progressMin = 1 << 20

// progress returns r wrapped so that reading it draws a progress bar of
// size bytes (-1: unknown) on stderr, and a function that erases the bar (once).
// r comes back as it is, with a function that does nothing, under
// --quiet or --log-format json, when stderr is not a terminal, or when size is known and below
// progressMin. An io.Seeker stays one, and seeking moves the bar.
func (a *app) progress(r io.Reader, size int64, what string) (io.Reader, func()) {
	if a.quiet || a.jsonLogs() || !a.isTerminal(a.stderr) || (size >= 0 && size < progressMin) {
		return r, func() {}
	}
	bar := progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowTotalBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(20),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSpinnerType(14),
		// No spinner goroutine: it would draw again after done, and
		// write to stderr concurrently with done's Clear.
		progressbar.OptionSetSpinnerChangeInterval(0),
	)
	done := sync.OnceFunc(func() {
		_ = bar.Exit()
		_ = bar.Clear()
	})
	pr := &progressReader{r: r, bar: bar}
	if s, ok := r.(io.Seeker); ok {
		return &progressSeeker{pr, s}, done
	}
	return pr, done
}

// isTerminal reports whether w is a terminal; tests replace it.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressReader adds what it reads to bar.
type progressReader struct {
	r   io.Reader
	bar *progressbar.ProgressBar
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	_ = p.bar.Add(n)
	return n, err
}

// progressSeeker is a progressReader whose seeks move the bar, so that a
// retried upload starts it again.
type progressSeeker struct {
	*progressReader
	s io.Seeker
}

func (p *progressSeeker) Seek(offset int64, whence int) (int64, error) {
	pos, err := p.s.Seek(offset, whence)
	if err == nil {
		_ = p.bar.Set64(pos)
	}
	return pos, err
}
