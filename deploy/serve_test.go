package deploy_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestServeDeployment: k8s/serve.yaml runs fence serve from the image the
// release build tags, as its reader ServiceAccount, with the token from a
// Secret and its probes on /healthz, behind a ClusterIP Service.
func TestServeDeployment(t *testing.T) {
	docs, err := loadYAML("k8s/serve.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dep := only(t, docs, "Deployment")
	pod := get(dep, "spec", "template", "spec")
	containers := list(get(pod, "containers"))
	if len(containers) != 1 {
		t.Fatalf("%d containers, want 1", len(containers))
	}
	c := containers[0].(map[string]any)
	if want := fenceImage(t); c["image"] != want {
		t.Errorf("image %v, want %s", c["image"], want)
	}
	if args := fmt.Sprint(c["args"]); !strings.HasPrefix(args, "[serve ") || !strings.Contains(args, "--allow-remote") {
		t.Errorf("args %s, want fence serve --allow-remote", args)
	}
	if sa := get(pod, "serviceAccountName"); sa != get(only(t, docs, "ServiceAccount"), "metadata", "name") {
		t.Errorf("runs as %v, not as the ServiceAccount beside it", sa)
	}
	var token bool
	for _, e := range list(c["env"]) {
		e := e.(map[string]any)
		if e["name"] == "FENCE_SERVE_TOKEN" && get(e, "valueFrom", "secretKeyRef", "key") == "token" {
			token = true
		}
	}
	if !token {
		t.Error("FENCE_SERVE_TOKEN does not come from a Secret")
	}
	for _, probe := range []string{"readinessProbe", "livenessProbe"} {
		if p := get(c, probe, "httpGet", "path"); p != "/healthz" {
			t.Errorf("%s on %v, want /healthz", probe, p)
		}
	}
	if typ := get(only(t, docs, "Service"), "spec", "type"); typ != "ClusterIP" {
		t.Errorf("Service type %v, want ClusterIP", typ)
	}
}
