package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestDeployStagedJob runs the pod command of the Indexed Job in
// deploy/k8s/staged-job.yaml for three indexes, with the pod's
// environment (the store a file:// one, the worker a shell script),
// then what its driver runs on the pods' logs (stdout and stderr
// together): the receipt lines, and one commit of them. The output of
// every index is published, and nothing before the commit.
func TestDeployStagedJob(t *testing.T) {
	b, err := os.ReadFile("../../deploy/k8s/staged-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Template       struct {
				Spec struct {
					Containers []struct {
						Command []string `yaml:"command"`
						Env     []struct {
							Name  string `yaml:"name"`
							Value string `yaml:"value"`
						} `yaml:"env"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	ctr := job.Spec.Template.Spec.Containers
	if job.Spec.CompletionMode != "Indexed" || len(ctr) != 1 || len(ctr[0].Command) != 3 || ctr[0].Command[0] != "sh" {
		t.Fatalf("want an Indexed Job of one container running sh -c SCRIPT, got %+v", job.Spec)
	}
	script := ctr[0].Command[2]

	c := newCLI(t)
	token := tok(c.acquire("jobs/daily"))
	worker := c.file("daily-part", "#!/bin/sh\necho \"working on part $1\"\nprintf 'rows of part %s\\n' \"$1\" > \"$2/rows.csv\"\n")
	if err := os.Chmod(worker, 0o755); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	for i := range 3 {
		out := t.TempDir()
		s := strings.ReplaceAll(strings.ReplaceAll(script, "/opt/jobs/daily-part", worker), "/work/out", out)
		cmd := exec.Command("sh", "-c", s)
		cmd.Env = []string{"PATH=" + filepath.Dir(fenceBin) + ":/usr/bin:/bin", "JOB_COMPLETION_INDEX=" + tok(uint64(i)), "XDG_CACHE_HOME=" + c.cache, "GORACE=atexit_sleep_ms=0"}
		for _, e := range ctr[0].Env {
			switch e.Name {
			case "FENCE_STORE":
				e.Value = c.store
			case "FENCE_TOKEN":
				if e.Value != "@TOKEN@" {
					t.Fatalf("FENCE_TOKEN is %q, want the driver's @TOKEN@", e.Value)
				}
				e.Value = token
			}
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		}
		cmd.Stdout, cmd.Stderr = &logs, &logs // kubectl logs shows both
		if err := cmd.Run(); err != nil {
			t.Fatalf("pod %d: %v\n%s", i, err, logs.String())
		}
	}
	c.want(exitError, "", "get", "jobs/daily", "part-0/rows.csv")
	var receipts strings.Builder
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, `"format":"fence-receipt/1"`) {
			receipts.WriteString(line)
		}
	}
	c.want(0, receipts.String(), "commit", "jobs/daily", "--token", token, "--receipts", "-")
	for i := range 3 {
		want := "rows of part " + tok(uint64(i)) + "\n"
		if got := c.want(0, "", "get", "jobs/daily", "part-"+tok(uint64(i))+"/rows.csv").stdout; got != want {
			t.Errorf("part %d: %q, want %q", i, got, want)
		}
	}
}
