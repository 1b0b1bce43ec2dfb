#!/usr/bin/env bash
# Validates the deployment files under deploy/ with the tools this machine
# can install (docs/deploy.md), and proves each validator still refuses
# the broken files in deploy/tools/testdata:
#
#   - deploy/k8s: kubeconform -strict, against JSON schemas made by
#     deploy/tools/k8sschema from the Kubernetes v1.21.2 OpenAPI document
#     that sigs.k8s.io/kustomize/kyaml embeds (unknown fields, types,
#     required fields), and k8smodels.mjs, with the schemas of a recent
#     Kubernetes API that the npm package kubernetes-models bundles
#     (types, required fields, enums; unknown fields pass);
#   - deploy/aws/fence.yaml: cfn-guard with AWS Control Tower's proactive
#     controls for S3, DynamoDB and IAM, both from the npm package
#     @cdklabs/cdk-validator-cfnguard (which ships the cfn-guard binary);
#   - action.yml (the GitHub Action): actionlint on the example workflow
#     deploy/github/report-workflow.yml, which uses it, so the action's
#     metadata and the inputs the workflow passes are checked;
#   - it writes the CloudFormation registry schemas of the template's
#     resource types (rain build --schema) to $FENCE_TEST_CFN_SCHEMAS, for
#     deploy/deploy_test.go's TestTemplateSchema.
#
# Everything is installed once into $FENCE_CACHE/deploy (default .cache/
# at the repository root). The first run builds kubeconform and rain from
# the Go module proxy: a few minutes on 2 cores, and once 24 minutes while
# other builds shared the machine.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

KUBECONFORM_MODULE="github.com/yannh/kubeconform/cmd/kubeconform@v0.8.0"
RAIN_MODULE="github.com/aws-cloudformation/rain/cmd/rain@v1.24.4"
ACTIONLINT_MODULE="github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"
CFNGUARD_PACKAGE="@cdklabs/cdk-validator-cfnguard@0.0.62"
K8S_MODELS_PACKAGES=(kubernetes-models@5.1.0 yaml@2.9.1)
# The rules applied to the template, from the package's
# rules/control-tower/cfn-guard. Not applied, by design (docs/deploy.md):
# s3 pr-2 (access logging: needs a log bucket of yours), pr-4 (event
# notifications), pr-8 (TLS-only bucket policy: the template's policy is
# exactly fence's; add that statement beside it), pr-9 (object lock: fence
# gc deletes), pr-10 and dynamodb pr-2 (KMS keys of yours), pr-12 (access
# points).
CFNGUARD_RULES=(
	s3/ct-s3-pr-1 s3/ct-s3-pr-3 s3/ct-s3-pr-5 s3/ct-s3-pr-6 s3/ct-s3-pr-11
	dynamodb/ct-dynamodb-pr-1
	identityandaccessmanagement/ct-iam-pr-1 identityandaccessmanagement/ct-iam-pr-2
	identityandaccessmanagement/ct-iam-pr-3 identityandaccessmanagement/ct-iam-pr-4
	identityandaccessmanagement/ct-iam-pr-5
)

FENCE_CACHE=${FENCE_CACHE:-"$PWD/.cache"}
cache="$FENCE_CACHE/deploy"
mkdir -p "$cache/bin"
: "${FENCE_TEST_CFN_SCHEMAS:=$cache/cfn-schemas}"

log() { printf '[deploy] %s\n' "$*" >&2; }

# go_tool installs a Go command at a pinned version into $cache/bin once.
go_tool() {
	local module=$1 name=${1%@*}
	name=${name##*/}
	if [[ -x "$cache/bin/$name" && "$(cat "$cache/bin/$name.version" 2>/dev/null)" == "$module" ]]; then
		return 0
	fi
	log "building $module"
	GOBIN="$cache/bin" GOFLAGS=-mod=mod go install "$module"
	echo "$module" >"$cache/bin/$name.version"
}

# cfn_guard unpacks the npm package (no install: its only dependency is a
# peer one, aws-cdk-lib, which the binary and the rules do not need).
cfn_guard() {
	local dir="$cache/cfn-guard"
	if [[ -d "$dir/package" && "$(cat "$dir/version" 2>/dev/null)" == "$CFNGUARD_PACKAGE" ]]; then
		return 0
	fi
	command -v npm >/dev/null || {
		log "cfn-guard comes from the npm registry: apt-get install -y nodejs npm"
		return 1
	}
	log "fetching $CFNGUARD_PACKAGE from the npm registry"
	rm -rf "$dir" && mkdir -p "$dir"
	local tgz
	tgz=$(cd "$dir" && npm pack --silent "$CFNGUARD_PACKAGE")
	tar -xzf "$dir/$tgz" -C "$dir"
	rm -f "$dir/$tgz"
	echo "$CFNGUARD_PACKAGE" >"$dir/version"
}

# k8s_models installs kubernetes-models (and yaml, to read the manifests)
# from the npm registry once.
k8s_models() {
	local dir="$cache/k8s-models"
	if [[ -d "$dir/node_modules/kubernetes-models" && "$(cat "$dir/version" 2>/dev/null)" == "${K8S_MODELS_PACKAGES[*]}" ]]; then
		return 0
	fi
	log "installing ${K8S_MODELS_PACKAGES[*]} from the npm registry"
	rm -rf "$dir" && mkdir -p "$dir"
	echo '{"private": true, "type": "module"}' >"$dir/package.json"
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "${K8S_MODELS_PACKAGES[@]}" >&2
	echo "${K8S_MODELS_PACKAGES[*]}" >"$dir/version"
}

# must_fail runs a validator on a file that has to be refused.
must_fail() {
	local file=$1
	shift
	if "$@" >"$cache/out.txt" 2>&1; then
		cat "$cache/out.txt" >&2
		log "FAIL: $file was accepted by $1; the check is broken"
		return 1
	fi
	log "refused, as it must be: $file ($(basename "$1"))"
}

(cd deploy/tools && go vet ./...)

# ---- Kubernetes

go_tool "$KUBECONFORM_MODULE"
kyaml=$(cd deploy/tools && go list -m -f '{{.Version}}' sigs.k8s.io/kustomize/kyaml)
stamp="$kyaml $(sha256sum deploy/tools/k8sschema/main.go | cut -d' ' -f1)"
if [[ "$(cat "$cache/k8s-schemas/stamp" 2>/dev/null)" != "$stamp" ]]; then
	log "writing Kubernetes JSON schemas from kyaml $kyaml"
	rm -rf "$cache/k8s-schemas"
	(cd deploy/tools && go run ./k8sschema -out "$cache/k8s-schemas")
	echo "$stamp" >"$cache/k8s-schemas/stamp"
fi
kubeconform=("$cache/bin/kubeconform" -strict -summary -kubernetes-version 1.21.2 -schema-location "$cache/k8s-schemas")
"${kubeconform[@]}" deploy/k8s
for f in misspelt-field wrong-type no-containers; do
	must_fail "deploy/tools/testdata/k8s/$f.yaml" "${kubeconform[@]}" "deploy/tools/testdata/k8s/$f.yaml"
done

k8s_models
cp deploy/tools/k8smodels.mjs "$cache/k8s-models/"
models=(node "$cache/k8s-models/k8smodels.mjs")
"${models[@]}" deploy/k8s/*.yaml
for f in bad-enum wrong-type no-containers; do
	must_fail "deploy/tools/testdata/k8s/$f.yaml" "${models[@]}" "deploy/tools/testdata/k8s/$f.yaml"
done

# ---- CloudFormation

cfn_guard
arch=$(uname -m)
[[ "$arch" == aarch64 || "$arch" == arm64 ]] && arch=aarch64 || arch=x86_64
guard="$cache/cfn-guard/package/bin/ubuntu/$arch/cfn-guard"
rules="$cache/cfn-guard/package/rules/control-tower/cfn-guard"
guard_args=()
for r in "${CFNGUARD_RULES[@]}"; do
	guard_args+=(--rules "$rules/$r.guard")
done
log "$("$guard" --version)"
"$guard" validate --show-summary pass,fail "${guard_args[@]}" --data deploy/aws/fence.yaml
for r in "${CFNGUARD_RULES[@]}"; do
	must_fail "deploy/tools/testdata/aws/unsafe.yaml ($r)" "$guard" validate --rules "$rules/$r.guard" --data deploy/tools/testdata/aws/unsafe.yaml
done

go_tool "$RAIN_MODULE"
mkdir -p "$FENCE_TEST_CFN_SCHEMAS"
for typ in $(grep -oE '^    Type: AWS::[A-Za-z0-9]+::[A-Za-z0-9]+' deploy/aws/fence.yaml | awk '{print $2}' | sort -u); do
	f="$FENCE_TEST_CFN_SCHEMAS/$(echo "$typ" | tr 'A-Z' 'a-z' | sed 's/::/-/g').json"
	if [[ "$(cat "$f.version" 2>/dev/null)" != "$RAIN_MODULE" ]]; then
		"$cache/bin/rain" build --schema "$typ" >"$f"
		echo "$RAIN_MODULE" >"$f.version"
	fi
done
log "CloudFormation registry schemas ($("$cache/bin/rain" --version)) in $FENCE_TEST_CFN_SCHEMAS, for TestTemplateSchema"

# ---- GitHub Action

go_tool "$ACTIONLINT_MODULE"
# actionlint_workflow lints a workflow that uses the action at the
# repository's root (uses: ./). actionlint reads a local action's
# metadata, and checks the inputs a workflow passes it, only inside a
# project (a git repository with .github/workflows), which this
# repository does not have: GitHub would run a workflow there. So both
# files are copied into a project of their own. No shellcheck is installed here, so
# the action's scripts take their inputs from the environment, never
# from ${{ }} in a script.
actionlint_workflow() {
	local wf=$1 dir
	dir=$(mktemp -d)
	mkdir -p "$dir/.github/workflows"
	cp action.yml "$dir/"
	cp "$wf" "$dir/.github/workflows/"
	git -C "$dir" init -q .
	(cd "$dir" && "$cache/bin/actionlint" -shellcheck= -pyflakes= ".github/workflows/$(basename "$wf")")
	local rc=$?
	rm -rf "$dir"
	return $rc
}
actionlint_workflow deploy/github/report-workflow.yml
log "actionlint $("$cache/bin/actionlint" -version | head -n1): action.yml, with deploy/github/report-workflow.yml"
must_fail deploy/tools/testdata/github/unknown-input.yml actionlint_workflow deploy/tools/testdata/github/unknown-input.yml
