package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionYAML is what the test reads of action.yml.
type actionYAML struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			ID    string            `yaml:"id"`
			Uses  string            `yaml:"uses"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			Run   string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// expr is a ${{ ... }} expression of a workflow.
var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// TestActionSteps runs the shell steps of action.yml as a GitHub runner
// would for a workflow that uses the action with the inputs of its own
// example (wait: 10m, publish: out:latest, a command that creates out
// itself): each input as INPUT_<NAME>, ${{ inputs.* }} and
// ${{ github.action_path }} substituted, each step under bash -eo
// pipefail with its own GITHUB_OUTPUT and GITHUB_PATH files, and the
// PATH entries a step adds given to the later ones. The build step's go
// is a stand-in that copies the fence built for these tests; setup-go
// (a uses: step) is skipped. Another holder has the lease when the step
// starts, so the step has to wait. The published keys must be there, at
// the token of the action's token output.
func TestActionSteps(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action actionYAML
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" {
		t.Fatalf("runs.using %q, want composite", action.Runs.Using)
	}

	c := newCLI(t)
	held := c.acquire("reports/daily", "--holder", "another-run", "--ttl", "2s")
	inputs := map[string]string{
		"domain":  "reports/daily",
		"store":   c.store,
		"command": `mkdir out && echo "eu,3" > out/summary.csv && echo "$FENCE_DOMAIN" > out/domain.txt`,
		"publish": "out:latest",
		"wait":    "10m",
	}
	for name, in := range action.Inputs {
		if _, ok := inputs[name]; !ok {
			inputs[name] = in.Default
		}
	}
	workspace, runnerTemp := c.dir, t.TempDir()

	// go build, as the build step runs it, makes the fence of these tests.
	fakeBin := t.TempDir()
	fakeGo := "#!/bin/sh\nset -e\ncase \" $* \" in *' build '*' ./cmd/fence '*) ;; *) echo \"unexpected go $*\" >&2; exit 1;; esac\n" +
		"[ -f cmd/fence/main.go ] || { echo \"go build run from $PWD\" >&2; exit 1; }\n" +
		"while [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then cp \"$FENCE_TEST_BIN\" \"$2\"; exit 0; fi; shift; done\necho 'no -o' >&2; exit 1\n"
	if err := os.WriteFile(filepath.Join(fakeBin, "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}

	eval := func(where, s string, outputs map[string]map[string]string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			switch {
			case e == "github.action_path":
				return root
			case strings.HasPrefix(e, "inputs."):
				v, ok := inputs[strings.TrimPrefix(e, "inputs.")]
				if !ok {
					t.Fatalf("%s: no input %q", where, e)
				}
				return v
			case strings.HasPrefix(e, "steps."):
				parts := strings.Split(e, ".") // steps.ID.outputs.NAME
				if len(parts) != 4 || parts[2] != "outputs" {
					t.Fatalf("%s: expression %q", where, e)
				}
				return outputs[parts[1]][parts[3]]
			}
			t.Fatalf("%s: expression %q that this test does not evaluate", where, e)
			return ""
		})
	}

	var path []string // what steps added through GITHUB_PATH, newest first
	outputs := map[string]map[string]string{}
	ran := 0
	for i, step := range action.Runs.Steps {
		if step.Uses != "" {
			t.Logf("step %d %q: uses %s, skipped", i, step.Name, step.Uses)
			continue
		}
		if step.Shell != "bash" {
			t.Fatalf("step %d %q: shell %q, want bash", i, step.Name, step.Shell)
		}
		stepDir := t.TempDir()
		ghOutput, ghPath := filepath.Join(stepDir, "output"), filepath.Join(stepDir, "path")
		for _, f := range []string{ghOutput, ghPath} {
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		script := filepath.Join(stepDir, "step.sh")
		if err := os.WriteFile(script, []byte(eval(step.Name, step.Run, outputs)), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = workspace
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "FENCE_") && !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "INPUT_") && !strings.HasPrefix(kv, "PATH=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env,
			"PATH="+strings.Join(append(append(append([]string(nil), path...), fakeBin), os.Getenv("PATH")), string(os.PathListSeparator)),
			"GITHUB_OUTPUT="+ghOutput, "GITHUB_PATH="+ghPath, "GITHUB_WORKSPACE="+workspace,
			"GITHUB_ACTION_PATH="+root, "RUNNER_TEMP="+runnerTemp, "CI=true", "GITHUB_ACTIONS=true",
			"GORACE=atexit_sleep_ms=0", "XDG_CACHE_HOME="+c.cache, "FENCE_TEST_BIN="+fenceBin)
		for name, v := range inputs {
			cmd.Env = append(cmd.Env, "INPUT_"+strings.ToUpper(strings.ReplaceAll(name, " ", "_"))+"="+v)
		}
		for k, v := range step.Env {
			cmd.Env = append(cmd.Env, k+"="+eval(step.Name+": env "+k, v, outputs))
		}
		out, err := cmd.CombinedOutput()
		t.Logf("step %d %q:\n%s", i, step.Name, out)
		if err != nil {
			t.Fatalf("step %d %q: %v", i, step.Name, err)
		}
		ran++
		added, err := os.ReadFile(ghPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range strings.Fields(string(added)) {
			path = append([]string{p}, path...)
		}
		if step.ID != "" {
			data, err := os.ReadFile(ghOutput)
			if err != nil {
				t.Fatal(err)
			}
			outputs[step.ID] = map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					outputs[step.ID][k] = v
				}
			}
		}
	}
	if ran < 2 {
		t.Fatalf("%d shell steps ran, want the build and the exec", ran)
	}

	tokenOut, ok := action.Outputs["token"]
	if !ok {
		t.Fatal("action.yml has no token output")
	}
	token, err := strconv.ParseUint(eval("outputs.token", tokenOut.Value, outputs), 10, 64)
	if err != nil || token <= held {
		t.Fatalf("token output %q (%v); want a token above the other run's %d", eval("outputs.token", tokenOut.Value, outputs), err, held)
	}
	var keys []struct {
		Key   string
		Token uint64
	}
	r := c.want(0, "", "ls", "reports/daily", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &keys); err != nil {
		t.Fatalf("ls --json printed %q: %v", r.stdout, err)
	}
	if len(keys) != 2 || keys[0].Key != "latest/domain.txt" || keys[1].Key != "latest/summary.csv" || keys[0].Token != token || keys[1].Token != token {
		t.Fatalf("published keys %+v; want latest/domain.txt and latest/summary.csv at token %d", keys, token)
	}
	if r := c.want(0, "", "get", "reports/daily", "latest/summary.csv"); r.stdout != "eu,3\n" {
		t.Fatalf("latest/summary.csv = %q", r.stdout)
	}
}
