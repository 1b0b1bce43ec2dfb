// Validates Kubernetes manifests with the JSON schemas that the npm package
// kubernetes-models bundles (a recent Kubernetes API, with enums), as a
// complement to kubeconform's strict check against Kubernetes v1.21.2: this
// one does not refuse unknown fields. deploy/tools/check.sh runs it:
//
//   node k8smodels.mjs FILE...
//
// It exits 1 when any object is invalid or of a kind it has no model for.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

let bad = 0;
for (const file of process.argv.slice(2)) {
  for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
    if (doc.errors.length > 0) {
      console.log(`${file}: ${doc.errors[0].message}`);
      bad++;
      continue;
    }
    const obj = doc.toJS();
    if (obj === null) continue;
    let Model;
    try {
      Model = (await import(`kubernetes-models/${obj.apiVersion}`))[obj.kind];
    } catch {
      // no such group and version
    }
    if (!Model) {
      console.log(`${file}: no model for ${obj.apiVersion} ${obj.kind}`);
      bad++;
      continue;
    }
    try {
      new Model(obj).validate();
      console.log(`${file}: ${obj.kind} ${obj.metadata?.name} is valid`);
    } catch (e) {
      console.log(`${file}: ${obj.kind} ${obj.metadata?.name} is invalid: ${e.message}`);
      bad++;
    }
  }
}
process.exit(bad > 0 ? 1 : 0);
