package fence_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Every relative link in README.md and docs/ names a file that exists,
// and a heading in it when it names one: the README moves its detail to
// docs/, and a moved section must not leave a link behind.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	fence := regexp.MustCompile("(?s)```.*?```")
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := fence.ReplaceAllString(string(data), "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), path)
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: link %q: no file %s", f, target, file)
				continue
			}
			checked++
			if anchor != "" && strings.HasSuffix(file, ".md") && !headings(t, file)[anchor] {
				t.Errorf("%s: link %q: no heading #%s in %s", f, target, anchor, file)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d relative links checked", checked)
	}
}

// headings returns the anchors GitHub gives the headings of a Markdown
// file: lower case, punctuation dropped, spaces as hyphens, -1, -2 on
// repeats.
func headings(t *testing.T, file string) map[string]bool {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
		}
		if inBlock || !strings.HasPrefix(line, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#"))) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		s := b.String()
		for n, base := 1, s; out[s]; n++ {
			s = base + "-" + strconv.Itoa(n)
		}
		out[s] = true
	}
	return out
}

// README.md is what a newcomer reads in five minutes: what fence is, how
// to install it, one example per kind of user, and links. Everything else
// belongs in docs/.
func TestReadmeLength(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 250 {
		t.Errorf("README.md has %d lines, at most 250: move detail to docs/ and link it from docs/README.md", n)
	}
}

// docs/README.md is the index of docs/: it links every page there, so
// that a new page cannot be forgotten by it.
func TestDocsIndexLinksEveryDoc(t *testing.T) {
	data, err := os.ReadFile("docs/README.md")
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, m := range regexp.MustCompile(`\]\(([^)#\s]+)`).FindAllStringSubmatch(string(data), -1) {
		linked[filepath.Join("docs", m[1])] = true
	}
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f != filepath.Join("docs", "README.md") && !linked[f] {
			t.Errorf("docs/README.md does not link %s: add it under the heading of what its reader wants to do", f)
		}
	}
	if len(linked) < 10 {
		t.Fatalf("docs/README.md links only %d files", len(linked))
	}
}

// The README's Go program builds and runs as written, in a module of its
// own that requires this one, against a file:// store.
func TestReadmeGoProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "main.go"), codeBlock(t, "README.md", "go"))
	write(t, filepath.Join(dir, "go.mod"), "module example.com/readme\n\ngo 1.26\n\nrequire github.com/fencedstore/fence v0.0.0\n\nreplace github.com/fencedstore/fence => "+root+"\n")
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), string(sum))
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "FENCE_STORE=file://"+filepath.Join(dir, "data"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "committed with token 1\n") {
		t.Fatalf("go run of the README's program: %v\n%s", err, out)
	}
}

// The README's cron job example runs as written with the fence binary on
// PATH, and publishes the job's files under latest/.
func TestReadmeCronJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fence binary")
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/fence").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/fence: %v\n%s", err, out)
	}
	block := ""
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, cron, ok := strings.Cut(string(data), "\n## A cron job")
	if !ok {
		t.Fatal("README.md has no section '## A cron job'")
	}
	if _, rest, ok := strings.Cut(cron, "```sh\n"); ok {
		block, _, _ = strings.Cut(rest, "\n```\n")
	}
	if !strings.Contains(block, "fence exec") {
		t.Fatalf("README.md's cron job section has no sh block running fence exec: %q", block)
	}
	cmd := exec.Command("bash", "-e", "-c", block)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "FENCE_STORE=", "FENCE_COORD=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's cron job: %v\n%s", err, out)
	}
	for _, key := range []string{"latest/README.txt ", "latest/summary.csv "} {
		if !strings.Contains(string(out), key) {
			t.Errorf("the README's cron job published no %s; fence ls printed:\n%s", key, out)
		}
	}
}

// codeBlock returns the first fenced block of language lang in file.
func codeBlock(t *testing.T, file, lang string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n```"+lang+"\n")
	if !ok {
		t.Fatalf("%s has no ```%s block", file, lang)
	}
	block, _, _ := strings.Cut(rest, "\n```\n")
	return block + "\n"
}

func write(t *testing.T, path, content string) {
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
