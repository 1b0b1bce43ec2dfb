package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestDeployCronJobCommand runs the command of the CronJob in
// deploy/k8s/cronjob.yaml, with its environment, against a file:// store
// instead of S3 and DynamoDB: its publish directory is a temporary one
// and its job a shell that writes a report there. fence exec must accept
// every flag, publish the report as one commit and log it as JSON.
func TestDeployCronJobCommand(t *testing.T) {
	b, err := os.ReadFile("../../deploy/k8s/cronjob.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cj struct {
		Spec struct {
			JobTemplate struct {
				Spec struct {
					Template struct {
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
			} `yaml:"jobTemplate"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &cj); err != nil {
		t.Fatal(err)
	}
	containers := cj.Spec.JobTemplate.Spec.Template.Spec.Containers
	if len(containers) != 1 {
		t.Fatalf("%d containers, want 1", len(containers))
	}
	argv := containers[0].Command
	dash := slices.Index(argv, "--")
	if len(argv) < 3 || argv[0] != "fence" || argv[1] != "exec" || dash < 0 {
		t.Fatalf("command %q, want fence exec DOMAIN [flags] -- CMD", argv)
	}
	domain := argv[2]

	c := newCLI(t)
	for _, e := range containers[0].Env {
		if strings.HasPrefix(e.Name, "FENCE_") && e.Name != "FENCE_STORE" && e.Name != "FENCE_COORD" {
			c.env = append(c.env, e.Name+"="+e.Value)
		}
	}
	out := t.TempDir()
	var args []string
	var prefix string
	for _, a := range argv[1:dash] {
		if v, ok := strings.CutPrefix(a, "--publish="); ok {
			dir, p, _ := strings.Cut(v, ":")
			if !slices.Contains(argv[dash+1:], dir) {
				t.Fatalf("the job %q is not given the --publish directory %s", argv[dash+1:], dir)
			}
			prefix = p
			a = "--publish=" + out + ":" + p
		}
		args = append(args, a)
	}
	if prefix == "" {
		t.Fatalf("command %q: no --publish=DIR:PREFIX", argv)
	}
	args = append(args, "--", "sh", "-c", `echo "region,total" > "$1/summary.csv"`, "sh", out)
	r := c.want(0, "", args...)
	if !strings.Contains(r.stderr, `"msg":"fence: commit accepted"`) || !strings.Contains(r.stderr, `"msg":"fence: lease released"`) {
		t.Errorf("no JSON log lines of the commit and the release:\n%s", r.stderr)
	}
	ls := c.want(0, "", "ls", domain)
	if !strings.Contains(ls.stdout, prefix+"/summary.csv") {
		t.Errorf("fence ls %s:\n%s\nwant %s", domain, ls.stdout, filepath.Join(prefix, "summary.csv"))
	}
}
