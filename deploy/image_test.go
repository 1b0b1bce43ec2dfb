package deploy_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// fenceImage is the image the release build tags: the repository and
// deploy/release/VERSION (deploy/tools/release, docs/release.md).
func fenceImage(t *testing.T) string {
	t.Helper()
	v, err := os.ReadFile("release/VERSION")
	if err != nil {
		t.Fatal(err)
	}
	return "ghcr.io/fencedstore/fence:" + strings.TrimSpace(string(v))
}

// TestImageNamed: the Kubernetes gc CronJob and the Compose file's fence
// service name the image the release build tags, so a version bump that
// forgets them fails here.
func TestImageNamed(t *testing.T) {
	want := fenceImage(t)
	docs, err := loadYAML("k8s/gc-cronjob.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cj := only(t, docs, "CronJob")
	containers := list(get(cj, "spec", "jobTemplate", "spec", "template", "spec", "containers"))
	if len(containers) != 1 {
		t.Fatalf("gc CronJob: %d containers, want 1", len(containers))
	}
	c := containers[0].(map[string]any)
	if c["image"] != want {
		t.Errorf("gc CronJob image %v, want %s", c["image"], want)
	}
	if args := fmt.Sprint(c["args"]); !strings.HasPrefix(args, "[gc ") {
		t.Errorf("gc CronJob args %s, want fence gc DOMAIN", args)
	}
	if sa := get(cj, "spec", "jobTemplate", "spec", "template", "spec", "serviceAccountName"); sa != get(only(t, docs, "ServiceAccount"), "metadata", "name") {
		t.Errorf("gc CronJob runs as %v, not as the ServiceAccount beside it", sa)
	}
	cron, err := os.ReadFile("k8s/cronjob.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cron), "COPY --from="+want+" /fence ") {
		t.Errorf("k8s/cronjob.yaml does not show how to add %s's /fence to the job's image", want)
	}
	compose, err := loadYAML("compose/docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	if img := get(compose[0], "services", "fence", "image"); img != want {
		t.Errorf("compose service fence: image %v, want %s", img, want)
	}
}
