// Command k8sschema writes the JSON schemas kubeconform validates
// Kubernetes manifests against, from the Kubernetes OpenAPI document that
// sigs.k8s.io/kustomize/kyaml embeds (Kubernetes v1.21.2), in the layout
// kubeconform reads with -schema-location DIR and -strict:
//
//	DIR/v1.21.2-standalone-strict/<kind>-<group>-<version>.json
//
// It does what kubeconform's openapi2jsonschema.py does for the
// "standalone-strict" schemas: one file per kind, whose references point
// into a "definitions" section of the same file; every object with
// properties refuses properties it does not declare; int-or-string and
// quantity values take a string or a number; optional properties may be
// null. The machines fence is developed on reach no other source of
// Kubernetes schemas (docs/deploy.md).
//
//	go run ./k8sschema -out DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

const refPrefix = "#/definitions/"

func main() {
	out := flag.String("out", "", "directory to write the schemas to")
	flag.Parse()
	if *out == "" {
		log.Fatal("k8sschema: -out DIR is required")
	}
	version := strings.TrimPrefix(openapi.GetSchemaVersion(), "v")
	raw, err := json.Marshal(openapi.Schema().Definitions)
	if err != nil {
		log.Fatal(err)
	}
	var defs map[string]any
	if err := json.Unmarshal(raw, &defs); err != nil {
		log.Fatal(err)
	}
	if len(defs) == 0 {
		log.Fatal("k8sschema: kyaml's OpenAPI document has no definitions")
	}
	for name, d := range defs {
		defs[name] = convert(name, d)
	}
	dir := filepath.Join(*out, "v"+version+"-standalone-strict")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	n := 0
	for name, d := range defs {
		def := d.(map[string]any)
		gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gvk := g.(map[string]any)
			group, _ := gvk["group"].(string)
			kind, _ := gvk["kind"].(string)
			ver, _ := gvk["version"].(string)
			apiVersion := ver
			if group != "" {
				apiVersion = group + "/" + ver
			}
			schema := root(defs, name, kind, apiVersion)
			b, err := json.MarshalIndent(schema, "", "  ")
			if err != nil {
				log.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fileName(kind, apiVersion)), b, 0o644); err != nil {
				log.Fatal(err)
			}
			n++
		}
	}
	fmt.Printf("k8sschema: %d schemas of Kubernetes v%s in %s\n", n, version, dir)
}

// fileName is kubeconform's name for kind's schema: the kind in lower
// case, the first segment of the group and the version.
func fileName(kind, apiVersion string) string {
	suffix := ""
	group, ver, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, ver = "", apiVersion
	}
	if group != "" {
		suffix += "-" + strings.ToLower(strings.Split(group, ".")[0])
	}
	suffix += "-" + strings.ToLower(ver)
	return strings.ToLower(kind) + suffix + ".json"
}

// root is the schema of one kind: its definition, with kind and apiVersion
// fixed, and every definition it reaches.
func root(defs map[string]any, name, kind, apiVersion string) map[string]any {
	s := clone(defs[name]).(map[string]any)
	if props, ok := s["properties"].(map[string]any); ok {
		if p, ok := props["kind"].(map[string]any); ok {
			p["enum"] = []any{kind}
		}
		if p, ok := props["apiVersion"].(map[string]any); ok {
			p["enum"] = []any{apiVersion}
		}
	}
	reach := map[string]any{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["$ref"].(string); ok {
				n := strings.TrimPrefix(r, refPrefix)
				if _, seen := reach[n]; !seen {
					d, ok := defs[n]
					if !ok {
						log.Fatalf("k8sschema: %s refers to %s, which is not defined", name, r)
					}
					reach[n] = d
					walk(d)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(s)
	s["definitions"] = reach
	s["$schema"] = "http://json-schema.org/draft-04/schema#"
	return s
}

// convert applies openapi2jsonschema's changes to one definition.
func convert(name string, d any) any {
	if name == "io.k8s.apimachinery.pkg.api.resource.Quantity" {
		m := d.(map[string]any)
		return map[string]any{"description": m["description"], "oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}}}
	}
	d = fix(d)
	// A definition of a scalar (Time, MicroTime, ...) is referred to by
	// optional properties, which may be null.
	if m, ok := d.(map[string]any); ok && m["type"] != "object" && m["type"] != "array" {
		nullable(m)
	}
	return d
}

func fix(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v["format"] == "int-or-string" {
			return map[string]any{"description": v["description"], "oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
		}
		for k, x := range v {
			if k == "properties" {
				continue
			}
			v[k] = fix(x)
		}
		if props, ok := v["properties"].(map[string]any); ok {
			required := strs(v["required"])
			for k, p := range props {
				p = fix(p)
				if !slices.Contains(required, k) {
					p = nullable(p)
				}
				props[k] = p
			}
			if _, set := v["additionalProperties"]; !set {
				v["additionalProperties"] = false
			}
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = fix(x)
		}
	}
	return v
}

// nullable lets an optional property be null, as an API server accepts.
func nullable(p any) any {
	if m, ok := p.(map[string]any); ok {
		if t, ok := m["type"].(string); ok {
			m["type"] = []any{t, "null"}
		}
	}
	return p
}

func strs(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func clone(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		log.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		log.Fatal(err)
	}
	return out
}
