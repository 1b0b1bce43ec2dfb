package clients

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A fault is a way a server can get one step of the scenario wrong,
// made by changing MinIO's responses in a proxyTarget.
type fault struct {
	name string
	// step and next start the lines a scenario prints for the step the
	// fault breaks and for the one after it ("" when it is the last).
	step, next string
	modify     func(*http.Response) error
}

var faults = []fault{
	{
		// A ranged GET answers with one byte changed.
		name: "range-wrong-bytes", step: "3. get", next: "4. put",
		modify: func(resp *http.Response) error {
			if resp.Request.Method != http.MethodGet || resp.Request.Header.Get("Range") == "" || resp.StatusCode != http.StatusPartialContent {
				return nil
			}
			return replaceBody(resp, func(b []byte) []byte {
				if len(b) > 0 {
					b[0] ^= 0x20
				}
				return b
			})
		},
	},
	{
		// A listing leaves out list/3.
		name: "list-drops-key", step: "4. put", next: "5. server-side copy",
		modify: func(resp *http.Response) error {
			if resp.Request.Method != http.MethodGet || resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "xml") {
				return nil
			}
			return replaceBody(resp, func(b []byte) []byte { return list3.ReplaceAll(b, nil) })
		},
	},
	{
		// A HEAD of the deleted gone.bin answers 200, as if it were there.
		name: "deleted-still-there", step: "6. put gone.bin", next: "",
		modify: func(resp *http.Response) error {
			if resp.Request.Method != http.MethodHead || !strings.HasSuffix(resp.Request.URL.Path, "/gone.bin") || resp.StatusCode != http.StatusNotFound {
				return nil
			}
			resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
			resp.Header = http.Header{
				"Content-Length": {strconv.Itoa(smallSize)},
				"Content-Type":   {"application/octet-stream"},
				"Etag":           {`"0123456789abcdef0123456789abcdef"`},
				"Last-Modified":  {"Sun, 06 Dec 2026 08:00:00 GMT"},
				"Accept-Ranges":  {"bytes"},
			}
			resp.ContentLength = smallSize
			return nil
		},
	},
}

// list3 is list/3's entry in a ListObjects or ListObjectsV2 response,
// its key as it is or URL-encoded (encoding-type=url, as rclone asks).
var list3 = regexp.MustCompile(`<Contents><Key>[^<]*(/|%2F)list(/|%2F)3</Key>.*?</Contents>`)

// replaceBody replaces resp's body with change of it, sent without
// content encoding (MinIO gzips listings for clients that accept it).
func replaceBody(resp *http.Response, change func([]byte) []byte) error {
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(resp.Body)
		if err != nil {
			return err
		}
		r = z
		resp.Header.Del("Content-Encoding")
	}
	b, err := io.ReadAll(r)
	resp.Body.Close()
	if err != nil {
		return err
	}
	b = change(b)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
	return nil
}

// TestScenariosCatchFaults shows that each client's scenario exits
// non-zero, at the step a fault breaks and not later, when the server
// gets that step wrong: the scenarios can fail, so their passing through
// the gateway means something.
func TestScenariosCatchFaults(t *testing.T) {
	m := newMinioTarget(t)
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			tg := &proxyTarget{m: m, modify: f.modify}
			for _, c := range clients {
				t.Run(c.name, func(t *testing.T) {
					argv := clientArgv(t, c)
					out, took, err := execScenario(t, tg.open(t, c.name), sources(t), argv, c.extra)
					if err == nil {
						t.Fatalf("%s's scenario exited 0 in %s though the server got step %q wrong:\n%s", c.name, took, f.step, out)
					}
					if !strings.Contains(out, f.step) || (f.next != "" && strings.Contains(out, f.next)) {
						t.Fatalf("%s's scenario failed (%v), but not at step %q:\n%s", c.name, err, f.step, out)
					}
					t.Logf("%s's scenario failed at step %q, as it must, in %s", c.name, f.step, took)
					if testing.Verbose() {
						t.Logf("output:\n%s", lastLines(out, 6))
					}
				})
			}
		})
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
