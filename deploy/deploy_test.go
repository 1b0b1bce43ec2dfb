// Package deploy_test checks the deployment files under deploy/ as far as
// a machine without AWS, Kubernetes or Docker can: every YAML and JSON
// file parses; the CloudFormation template's bucket policy and IAM
// policies are what package policy (and so `fence policy`) writes for its
// bucket, prefix and table; its lease table has the schema
// dynamocoord.CreateTable creates; its outputs are fence URLs; the
// Kubernetes and Compose files name valid fence settings. The schema
// validators and the CloudFormation linter run in deploy/local/test.sh
// (docs/deploy.md).
package deploy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/policy"
)

const templatePath = "aws/fence.yaml"

// TestFilesParse parses every YAML and JSON file under deploy/ (each
// document of a YAML stream), CloudFormation's short-form tags included.
func TestFilesParse(t *testing.T) {
	var n int
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "node_modules" {
			return fs.SkipDir
		}
		switch filepath.Ext(path) {
		case ".yaml", ".yml":
			docs, err := loadYAML(path)
			if err != nil {
				t.Errorf("%s: %v", path, err)
			} else if len(docs) == 0 {
				t.Errorf("%s: no YAML document", path)
			}
			n++
		case ".json":
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Errorf("%s: %v", path, err)
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{templatePath, "k8s/cronjob.yaml", "k8s/serviceaccount.yaml", "compose/docker-compose.yml"} {
		if _, err := os.Stat(want); err != nil {
			t.Errorf("%s: %v", want, err)
		}
	}
	t.Logf("%d YAML and JSON files parsed", n)
}

// The template's names, as policy.Target fields: Fn::Sub resolves them
// in the stack.
var placeholders = policy.Target{
	Partition: "${AWS::Partition}",
	Bucket:    "${Bucket}",
	Prefix:    "${Prefix}",
	Table:     "${LeaseTable}",
	Region:    "${AWS::Region}",
	Account:   "${AWS::AccountId}",
}

// A stack's values, to compare with what config (the code behind
// `fence policy`) writes from URLs.
var stack = map[string]string{
	"AWS::Partition": "aws",
	"AWS::Region":    "eu-west-1",
	"AWS::AccountId": "111122223333",
	"Bucket":         "example-reports",
	"Prefix":         "teams/fence",
	"LeaseTable":     "fence-leases",
}

const (
	stackStore = "s3://example-reports/teams/fence"
	stackCoord = "dynamodb://fence-leases?region=eu-west-1"
)

// TestBucketPolicy: the template's bucket policy is policy.Bucket for the
// template's bucket and prefix, and with a stack's values it is what
// `fence policy --store s3://BUCKET/PREFIX` prints.
func TestBucketPolicy(t *testing.T) {
	tpl := loadTemplate(t)
	res := resource(t, tpl, "BucketPolicy", "AWS::S3::BucketPolicy")
	props := res["Properties"].(map[string]any)
	if !reflect.DeepEqual(props["Bucket"], map[string]any{"Ref": "Bucket"}) {
		t.Errorf("BucketPolicy.Bucket = %v, want !Ref Bucket", props["Bucket"])
	}
	doc := props["PolicyDocument"]
	sameJSON(t, "bucket policy", subTemplates(t, doc), policy.Bucket(placeholders.Partition, placeholders.Bucket, placeholders.Prefix))

	want, err := config.BucketPolicy(stackStore, "")
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "bucket policy in a stack", substitute(t, doc, stack), want)
}

// TestIAMPolicies: each managed policy is policy.IAM of its role for the
// template's bucket, prefix and table, and with a stack's values it is
// what `fence policy --iam ROLE --store s3://BUCKET/PREFIX --coord
// dynamodb://TABLE --account A` prints.
func TestIAMPolicies(t *testing.T) {
	tpl := loadTemplate(t)
	roles := map[string]policy.Role{"WriterPolicy": policy.Writer, "ReaderPolicy": policy.Reader, "GCPolicy": policy.Collector}
	var managed []string
	for name, r := range tpl["Resources"].(map[string]any) {
		if r.(map[string]any)["Type"] == "AWS::IAM::ManagedPolicy" {
			managed = append(managed, name)
		}
	}
	if len(managed) != len(roles) {
		t.Errorf("managed policies %v, want one for each of %v", managed, policy.Roles)
	}
	for name, role := range roles {
		res := resource(t, tpl, name, "AWS::IAM::ManagedPolicy")
		doc := res["Properties"].(map[string]any)["PolicyDocument"]
		target := placeholders
		if role == policy.Collector {
			target.Table = "" // gc does not take leases
		}
		want, err := policy.IAM(role, target)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, name, subTemplates(t, doc), want)

		want, err = config.IAMPolicy(role, stackStore, stackCoord, policy.Target{Account: stack["AWS::AccountId"]})
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, name+" in a stack", substitute(t, doc, stack), want)
	}
}

// TestBucket: public access blocked, default encryption, versioning on,
// and the bucket kept when the stack goes.
func TestBucket(t *testing.T) {
	tpl := loadTemplate(t)
	res := resource(t, tpl, "Bucket", "AWS::S3::Bucket")
	retained(t, "Bucket", res)
	p := res["Properties"].(map[string]any)
	if !reflect.DeepEqual(p["BucketName"], map[string]any{"Ref": "BucketName"}) {
		t.Errorf("BucketName = %v, want !Ref BucketName", p["BucketName"])
	}
	want := map[string]any{"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true}
	if got := p["PublicAccessBlockConfiguration"]; !reflect.DeepEqual(got, want) {
		t.Errorf("PublicAccessBlockConfiguration = %v, want %v", got, want)
	}
	if got := p["VersioningConfiguration"]; !reflect.DeepEqual(got, map[string]any{"Status": "Enabled"}) {
		t.Errorf("VersioningConfiguration = %v, want Status: Enabled", got)
	}
	enc, _ := p["BucketEncryption"].(map[string]any)
	rules, _ := enc["ServerSideEncryptionConfiguration"].([]any)
	if len(rules) != 1 {
		t.Fatalf("BucketEncryption = %v, want one default encryption rule", p["BucketEncryption"])
	}
	def, _ := rules[0].(map[string]any)["ServerSideEncryptionByDefault"].(map[string]any)
	if alg := def["SSEAlgorithm"]; alg != "AES256" && alg != "aws:kms" && alg != "aws:kms:dsse" {
		t.Errorf("SSEAlgorithm = %v, want a default encryption", alg)
	}
}

// TestTable: the lease table has exactly the key schema and billing that
// dynamocoord.CreateTable (fence init) gives it, point-in-time recovery,
// and no TTL, index or stream.
func TestTable(t *testing.T) {
	tpl := loadTemplate(t)
	res := resource(t, tpl, "LeaseTable", "AWS::DynamoDB::Table")
	retained(t, "LeaseTable", res)
	p := res["Properties"].(map[string]any)
	var keys []string
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"AttributeDefinitions", "BillingMode", "KeySchema", "PointInTimeRecoverySpecification", "TableName"}; !slices.Equal(keys, want) {
		t.Errorf("LeaseTable properties %v, want %v (no TimeToLiveSpecification: a TTL would delete token counters)", keys, want)
	}
	if !reflect.DeepEqual(p["TableName"], map[string]any{"Ref": "TableName"}) {
		t.Errorf("TableName = %v, want !Ref TableName", p["TableName"])
	}
	if got := p["PointInTimeRecoverySpecification"]; !reflect.DeepEqual(got, map[string]any{"PointInTimeRecoveryEnabled": true}) {
		t.Errorf("PointInTimeRecoverySpecification = %v, want enabled", got)
	}
	want := tableOfTemplate(p)
	if documented := (tableShape{
		Attributes: map[string]string{"domain": "S"},
		Keys:       map[string]string{"domain": "HASH"},
		Billing:    "PAY_PER_REQUEST",
	}); !reflect.DeepEqual(want, documented) {
		t.Errorf("LeaseTable = %+v, want %+v", want, documented)
	}

	// With a DynamoDB implementation at hand, compare with the table
	// dynamocoord.CreateTable really creates.
	endpoint := os.Getenv("FENCE_TEST_DYNAMODB_ENDPOINT")
	if endpoint == "" {
		t.Log("FENCE_TEST_DYNAMODB_ENDPOINT is not set: compared with the schema fence init documents, not with a table it created")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := dynamocoord.NewClient(ctx, &dynamocoord.OpenOptions{Endpoint: endpoint, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("deploy-test-%d", time.Now().UnixNano())
	if err := dynamocoord.CreateTable(ctx, client, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	got := tableShape{Attributes: map[string]string{}, Keys: map[string]string{}}
	for _, a := range desc.Table.AttributeDefinitions {
		got.Attributes[aws.ToString(a.AttributeName)] = string(a.AttributeType)
	}
	for _, k := range desc.Table.KeySchema {
		got.Keys[aws.ToString(k.AttributeName)] = string(k.KeyType)
	}
	if desc.Table.BillingModeSummary != nil {
		got.Billing = string(desc.Table.BillingModeSummary.BillingMode)
	}
	if len(desc.Table.GlobalSecondaryIndexes)+len(desc.Table.LocalSecondaryIndexes) != 0 {
		t.Errorf("CreateTable made indexes: %+v %+v", desc.Table.GlobalSecondaryIndexes, desc.Table.LocalSecondaryIndexes)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the template's table %+v, the one dynamocoord.CreateTable created %+v", want, got)
	}
}

type tableShape struct {
	Attributes map[string]string // name: type
	Keys       map[string]string // name: key type
	Billing    string
}

func tableOfTemplate(p map[string]any) tableShape {
	s := tableShape{Attributes: map[string]string{}, Keys: map[string]string{}}
	for _, a := range list(p["AttributeDefinitions"]) {
		m, _ := a.(map[string]any)
		s.Attributes[fmt.Sprint(m["AttributeName"])] = fmt.Sprint(m["AttributeType"])
	}
	for _, k := range list(p["KeySchema"]) {
		m, _ := k.(map[string]any)
		s.Keys[fmt.Sprint(m["AttributeName"])] = fmt.Sprint(m["KeyType"])
	}
	s.Billing, _ = p["BillingMode"].(string)
	return s
}

// TestOutputs: the outputs are the URLs fence takes, naming the
// template's bucket, prefix and table; and every name a Ref or Fn::Sub
// uses is a parameter, a resource or a pseudo parameter.
func TestOutputs(t *testing.T) {
	tpl := loadTemplate(t)
	outputs := tpl["Outputs"].(map[string]any)
	value := func(name string) string {
		o, _ := outputs[name].(map[string]any)
		if o == nil {
			t.Fatalf("no output %s", name)
		}
		s, ok := substitute(t, o["Value"], stack).(string)
		if !ok {
			t.Fatalf("output %s is not a string: %v", name, o["Value"])
		}
		return s
	}
	store, err := config.ParseURL(value("StoreURL"))
	if err != nil {
		t.Fatal(err)
	}
	if store.Scheme != "s3" || store.Bucket != stack["Bucket"] || store.Prefix != stack["Prefix"] || store.Region != stack["AWS::Region"] {
		t.Errorf("StoreURL %s: %+v", value("StoreURL"), store)
	}
	coordLoc, err := config.ParseURL(value("CoordURL"))
	if err != nil {
		t.Fatal(err)
	}
	if coordLoc.Scheme != "dynamodb" || coordLoc.Table != stack["LeaseTable"] || coordLoc.Region != stack["AWS::Region"] {
		t.Errorf("CoordURL %s: %+v", value("CoordURL"), coordLoc)
	}

	names := map[string]bool{}
	for n := range tpl["Parameters"].(map[string]any) {
		names[n] = true
	}
	for n := range tpl["Resources"].(map[string]any) {
		names[n] = true
	}
	walk(tpl, func(m map[string]any) {
		if r, ok := m["Ref"].(string); ok && len(m) == 1 && !names[r] && !strings.HasPrefix(r, "AWS::") {
			t.Errorf("!Ref %s: no such parameter or resource", r)
		}
		if s, ok := m["Fn::Sub"].(string); ok {
			for _, v := range subVar.FindAllStringSubmatch(s, -1) {
				if !names[v[1]] && !strings.HasPrefix(v[1], "AWS::") {
					t.Errorf("!Sub %q: ${%s} is no parameter or resource", s, v[1])
				}
			}
		}
	})
}

// TestCronJob: the CronJob runs fence exec with --publish, forbids
// concurrent runs, lets the pod stop for longer than --grace, logs
// decisions as JSON, names valid fence URLs and runs as the ServiceAccount
// annotated with an IAM role. (cmd/fence's TestDeployCronJobCommand runs
// its command.)
func TestCronJob(t *testing.T) {
	docs, err := loadYAML("k8s/cronjob.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cj := only(t, docs, "CronJob")
	spec := get(cj, "spec").(map[string]any)
	if spec["concurrencyPolicy"] != "Forbid" {
		t.Errorf("concurrencyPolicy = %v, want Forbid", spec["concurrencyPolicy"])
	}
	pod := get(cj, "spec", "jobTemplate", "spec", "template", "spec").(map[string]any)
	containers := list(pod["containers"])
	if len(containers) != 1 {
		t.Fatalf("%d containers, want 1", len(containers))
	}
	c := containers[0].(map[string]any)
	var argv []string
	for _, a := range list(c["command"]) {
		argv = append(argv, fmt.Sprint(a))
	}
	if len(argv) < 4 || argv[0] != "fence" || argv[1] != "exec" {
		t.Fatalf("command %q, want fence exec DOMAIN ... -- CMD", argv)
	}
	dash := slices.Index(argv, "--")
	if dash < 0 || dash == len(argv)-1 {
		t.Fatalf("command %q: no -- CMD", argv)
	}
	flags := map[string]string{}
	for _, a := range argv[3:dash] {
		k, v, _ := strings.Cut(a, "=")
		flags[k] = v
	}
	ttl, err := time.ParseDuration(flags["--ttl"])
	if err != nil {
		t.Fatalf("--ttl: %v", err)
	}
	grace, err := time.ParseDuration(flags["--grace"])
	if err != nil {
		t.Fatalf("--grace: %v", err)
	}
	if term, _ := pod["terminationGracePeriodSeconds"].(int); time.Duration(term)*time.Second <= grace {
		t.Errorf("terminationGracePeriodSeconds %d is not above --grace %s", term, grace)
	}
	if ttl < 3*time.Second {
		t.Errorf("--ttl %s: renewed every third of it, that is too short for a pod", ttl)
	}
	dir, prefix, ok := strings.Cut(flags["--publish"], ":")
	if !ok || prefix == "" {
		t.Errorf("--publish %q, want DIR:PREFIX", flags["--publish"])
	}
	var mounted bool
	for _, m := range list(c["volumeMounts"]) {
		mounted = mounted || m.(map[string]any)["mountPath"] == dir
	}
	if !mounted {
		t.Errorf("--publish directory %s is not a volume mount", dir)
	}
	if !slices.Contains(argv[dash+1:], dir) {
		t.Errorf("the job %q is not given the --publish directory %s", argv[dash+1:], dir)
	}

	env := map[string]string{}
	for _, e := range list(c["env"]) {
		m := e.(map[string]any)
		env[fmt.Sprint(m["name"])] = fmt.Sprint(m["value"])
	}
	if env["FENCE_LOG_LEVEL"] != "info" || env["FENCE_LOG_FORMAT"] != "json" {
		t.Errorf("FENCE_LOG_LEVEL=%q FENCE_LOG_FORMAT=%q, want info and json", env["FENCE_LOG_LEVEL"], env["FENCE_LOG_FORMAT"])
	}
	if l, err := config.ParseURL(env["FENCE_STORE"]); err != nil || l.Scheme != "s3" {
		t.Errorf("FENCE_STORE %q: %v, want an s3:// URL", env["FENCE_STORE"], err)
	}
	if l, err := config.ParseURL(env["FENCE_COORD"]); err != nil || l.Scheme != "dynamodb" {
		t.Errorf("FENCE_COORD %q: %v, want a dynamodb:// URL", env["FENCE_COORD"], err)
	}

	docs, err = loadYAML("k8s/serviceaccount.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sa := only(t, docs, "ServiceAccount")
	if name := get(sa, "metadata", "name"); name != pod["serviceAccountName"] {
		t.Errorf("the pod runs as %v, the ServiceAccount is %v", pod["serviceAccountName"], name)
	}
	role, _ := get(sa, "metadata", "annotations").(map[string]any)["eks.amazonaws.com/role-arn"].(string)
	if !regexp.MustCompile(`^arn:aws[a-z-]*:iam::\d{12}:role/.+$`).MatchString(role) {
		t.Errorf("eks.amazonaws.com/role-arn %q is not an IAM role ARN", role)
	}
}

// TestCompose: MinIO, DynamoDB Local and a one-shot fence init, with fence
// settings that are valid fence URLs pointing at those services.
func TestCompose(t *testing.T) {
	docs, err := loadYAML("compose/docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 {
		t.Fatalf("%d documents, want 1", len(docs))
	}
	services := get(docs[0], "services").(map[string]any)
	for _, s := range []string{"minio", "dynamodb", "fence-init"} {
		if services[s] == nil {
			t.Errorf("no service %s", s)
		}
	}
	if img := get(services, "dynamodb", "image"); !strings.HasPrefix(fmt.Sprint(img), "amazon/dynamodb-local:") {
		t.Errorf("dynamodb image %v, want a pinned amazon/dynamodb-local", img)
	}
	initSvc := services["fence-init"].(map[string]any)
	if initSvc["restart"] != "no" {
		t.Errorf("fence-init restart = %v, want \"no\" (one shot)", initSvc["restart"])
	}
	cmd := strings.Join(strings.Fields(fmt.Sprint(initSvc["command"])), " ")
	if !strings.Contains(cmd, "fence init") {
		t.Errorf("fence-init command %q does not run fence init", cmd)
	}
	env, _ := initSvc["environment"].(map[string]any)
	store, err := config.ParseURL(fmt.Sprint(env["FENCE_STORE"]))
	if err != nil || store.Scheme != "s3" || !strings.Contains(store.Endpoint, "//minio:") || !store.PathStyle {
		t.Errorf("FENCE_STORE %v: %+v, %v; want s3:// at the minio service, path style", env["FENCE_STORE"], store, err)
	}
	coordLoc, err := config.ParseURL(fmt.Sprint(env["FENCE_COORD"]))
	if err != nil || coordLoc.Scheme != "dynamodb" || !strings.Contains(coordLoc.Endpoint, "//dynamodb:") {
		t.Errorf("FENCE_COORD %v: %+v, %v; want dynamodb:// at the dynamodb service", env["FENCE_COORD"], coordLoc, err)
	}
	minioEnv, _ := get(services, "minio", "environment").(map[string]any)
	if env["AWS_ACCESS_KEY_ID"] != minioEnv["MINIO_ROOT_USER"] || env["AWS_SECRET_ACCESS_KEY"] != minioEnv["MINIO_ROOT_PASSWORD"] {
		t.Errorf("fence's credentials are not MinIO's")
	}
}

// TestTemplateSchema checks the template as cfn-lint's schema rules do,
// against the CloudFormation registry's resource schemas in the directory
// FENCE_TEST_CFN_SCHEMAS (deploy/local/test.sh writes them there with
// `rain build --schema TYPE`): every resource's properties, with
// intrinsic functions resolved with sample values, validate against its
// type's schema (unknown or misspelt properties, wrong types, missing
// required ones, values out of range); the template's sections, resource
// attributes and parameters are of the forms CloudFormation takes; and
// each parameter's default and sample value match its AllowedPattern.
func TestTemplateSchema(t *testing.T) {
	tpl := loadTemplate(t)
	checkTemplateShape(t, tpl)
	dir := os.Getenv("FENCE_TEST_CFN_SCHEMAS")
	if dir == "" {
		t.Skip("FENCE_TEST_CFN_SCHEMAS is not set: the resources were not checked against the CloudFormation registry's schemas (deploy/local/test.sh sets it)")
	}
	for name, err := range schemaErrors(t, tpl, dir) {
		if err != nil {
			t.Errorf("resource %s does not match the registry schema of its type:\n%v", name, err)
		}
	}

	// The check itself: a misspelt property and a value out of its enum
	// are refused.
	broken := loadTemplate(t)
	table := get(broken, "Resources", "LeaseTable", "Properties").(map[string]any)
	table["PointInTimeRecoverySpecificaton"] = table["PointInTimeRecoverySpecification"]
	delete(table, "PointInTimeRecoverySpecification")
	get(broken, "Resources", "Bucket", "Properties", "VersioningConfiguration").(map[string]any)["Status"] = "On"
	errs := schemaErrors(t, broken, dir)
	for _, name := range []string{"LeaseTable", "Bucket"} {
		if errs[name] == nil {
			t.Errorf("a broken %s passed the registry schema check", name)
		}
	}
}

// schemaErrors validates each resource's properties, its intrinsic
// functions resolved with sample values, against its type's registry
// schema in dir.
func schemaErrors(t *testing.T, tpl map[string]any, dir string) map[string]error {
	t.Helper()
	vals := sampleValues(t, tpl)
	errs := map[string]error{}
	for name, r := range tpl["Resources"].(map[string]any) {
		res := r.(map[string]any)
		typ := fmt.Sprint(res["Type"])
		file := filepath.Join(dir, strings.ToLower(strings.ReplaceAll(typ, "::", "-"))+".json")
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%s: no registry schema for %s: %v", name, typ, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft7)
		if err := c.AddResource(file, doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		props := resolveSample(t, res["Properties"], vals)
		if props == nil {
			props = map[string]any{}
		}
		pj, err := json.Marshal(props)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(pj))
		if err != nil {
			t.Fatal(err)
		}
		errs[name] = sch.Validate(inst)
	}
	return errs
}

// checkTemplateShape checks the template's sections, and the keys of its
// parameters, resources and outputs, against CloudFormation's template
// anatomy.
func checkTemplateShape(t *testing.T, tpl map[string]any) {
	t.Helper()
	allowed := func(what string, m map[string]any, keys ...string) {
		for k := range m {
			if !slices.Contains(keys, k) {
				t.Errorf("%s: unknown key %s", what, k)
			}
		}
	}
	allowed("template", tpl, "AWSTemplateFormatVersion", "Description", "Metadata", "Parameters", "Rules", "Mappings", "Conditions", "Transform", "Resources", "Outputs")
	if tpl["AWSTemplateFormatVersion"] != "2010-09-09" {
		t.Errorf("AWSTemplateFormatVersion %v", tpl["AWSTemplateFormatVersion"])
	}
	paramTypes := []string{"String", "Number", "List<Number>", "CommaDelimitedList"}
	for name, p := range tpl["Parameters"].(map[string]any) {
		pm := p.(map[string]any)
		allowed("parameter "+name, pm, "Type", "Default", "AllowedPattern", "AllowedValues", "ConstraintDescription", "Description", "MaxLength", "MaxValue", "MinLength", "MinValue", "NoEcho")
		if !slices.Contains(paramTypes, fmt.Sprint(pm["Type"])) && !strings.HasPrefix(fmt.Sprint(pm["Type"]), "AWS::") {
			t.Errorf("parameter %s: type %v", name, pm["Type"])
		}
	}
	for name, r := range tpl["Resources"].(map[string]any) {
		rm := r.(map[string]any)
		allowed("resource "+name, rm, "Type", "Properties", "DependsOn", "Condition", "DeletionPolicy", "UpdateReplacePolicy", "Metadata", "CreationPolicy", "UpdatePolicy")
		for _, attr := range []string{"DeletionPolicy", "UpdateReplacePolicy"} {
			if v, ok := rm[attr]; ok && !slices.Contains([]any{"Delete", "Retain", "RetainExceptOnCreate", "Snapshot"}, v) {
				t.Errorf("resource %s: %s %v", name, attr, v)
			}
		}
	}
	for name, o := range tpl["Outputs"].(map[string]any) {
		om := o.(map[string]any)
		allowed("output "+name, om, "Description", "Value", "Export", "Condition")
		if om["Value"] == nil {
			t.Errorf("output %s has no Value", name)
		}
	}
}

// sampleValues gives each parameter its default (a sample where it has
// none), checked against its AllowedPattern and bounds, each resource a
// sample physical name, and the pseudo parameters a stack's values.
func sampleValues(t *testing.T, tpl map[string]any) map[string]any {
	t.Helper()
	samples := map[string]any{"BucketName": "example-reports"}
	vals := map[string]any{}
	for k, v := range stack {
		if strings.HasPrefix(k, "AWS::") {
			vals[k] = v
		}
	}
	for name, p := range tpl["Parameters"].(map[string]any) {
		pm := p.(map[string]any)
		v, ok := pm["Default"]
		if !ok {
			if v, ok = samples[name]; !ok {
				t.Fatalf("parameter %s has no default and no sample value", name)
			}
		}
		if pat, ok := pm["AllowedPattern"].(string); ok {
			if !regexp.MustCompile(pat).MatchString(fmt.Sprint(v)) {
				t.Errorf("parameter %s: %v does not match its AllowedPattern %s", name, v, pat)
			}
		}
		if pm["Type"] == "Number" {
			n, ok := v.(int)
			if !ok {
				t.Fatalf("parameter %s: %v is not a number", name, v)
			}
			if lo, ok := pm["MinValue"].(int); ok && n < lo {
				t.Errorf("parameter %s: %d below MinValue %d", name, n, lo)
			}
		}
		vals[name] = v
	}
	for name := range tpl["Resources"].(map[string]any) {
		vals[name] = "sample-" + strings.ToLower(name)
	}
	// A resource's Ref is its name where it has one.
	vals["Bucket"] = vals["BucketName"]
	vals["LeaseTable"] = vals["TableName"]
	return vals
}

// resolveSample resolves Ref and Fn::Sub with vals, Fn::GetAtt with a
// sample string, and fails on other intrinsic functions.
func resolveSample(t *testing.T, v any, vals map[string]any) any {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 1 {
			for k, x := range v {
				switch {
				case k == "Ref":
					val, ok := vals[fmt.Sprint(x)]
					if !ok {
						t.Errorf("!Ref %v: no such name", x)
					}
					return val
				case k == "Fn::Sub":
					s, ok := x.(string)
					if !ok {
						t.Errorf("Fn::Sub with variables is not resolved by this check: %v", x)
						return ""
					}
					return subVar.ReplaceAllStringFunc(s, func(m string) string {
						val, ok := vals[m[2:len(m)-1]]
						if !ok {
							t.Errorf("!Sub %q: no value for %s", s, m)
						}
						return fmt.Sprint(val)
					})
				case k == "Fn::GetAtt":
					return "sample-attribute"
				case strings.HasPrefix(k, "Fn::"):
					t.Errorf("%s is not resolved by this check", k)
					return nil
				}
			}
		}
		out := map[string]any{}
		for k, x := range v {
			out[k] = resolveSample(t, x, vals)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = resolveSample(t, x, vals)
		}
		return out
	}
	return v
}

// ---- helpers

var subVar = regexp.MustCompile(`\$\{([^}!]+)\}`)

func loadTemplate(t *testing.T) map[string]any {
	t.Helper()
	docs, err := loadYAML(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 {
		t.Fatalf("%s: %d documents", templatePath, len(docs))
	}
	return docs[0].(map[string]any)
}

func resource(t *testing.T, tpl map[string]any, name, typ string) map[string]any {
	t.Helper()
	r, _ := tpl["Resources"].(map[string]any)[name].(map[string]any)
	if r == nil || r["Type"] != typ {
		t.Fatalf("no resource %s of type %s", name, typ)
	}
	return r
}

func retained(t *testing.T, name string, r map[string]any) {
	t.Helper()
	if r["DeletionPolicy"] != "Retain" || r["UpdateReplacePolicy"] != "Retain" {
		t.Errorf("%s: DeletionPolicy %v, UpdateReplacePolicy %v; want Retain", name, r["DeletionPolicy"], r["UpdateReplacePolicy"])
	}
}

// subTemplates replaces each {"Fn::Sub": "S"} by S, and fails on any
// other intrinsic function and on a plain string with ${...} in it (which
// CloudFormation would keep literally).
func subTemplates(t *testing.T, v any) any {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v["Fn::Sub"].(string); ok && len(v) == 1 {
			return s
		}
		out := map[string]any{}
		for k, x := range v {
			if k == "Ref" || strings.HasPrefix(k, "Fn::") {
				t.Errorf("unexpected %s in a policy document: %v", k, v)
			}
			out[k] = subTemplates(t, x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = subTemplates(t, x)
		}
		return out
	case string:
		if strings.Contains(v, "${") {
			t.Errorf("%q has ${...} but no !Sub", v)
		}
	}
	return v
}

// substitute resolves Fn::Sub and Ref with vals.
func substitute(t *testing.T, v any, vals map[string]string) any {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v["Fn::Sub"].(string); ok && len(v) == 1 {
			return subVar.ReplaceAllStringFunc(s, func(m string) string {
				name := m[2 : len(m)-1]
				val, ok := vals[name]
				if !ok {
					t.Errorf("no value for ${%s}", name)
				}
				return val
			})
		}
		if r, ok := v["Ref"].(string); ok && len(v) == 1 {
			val, ok := vals[r]
			if !ok {
				t.Errorf("no value for !Ref %s", r)
			}
			return val
		}
		out := map[string]any{}
		for k, x := range v {
			out[k] = substitute(t, x, vals)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = substitute(t, x, vals)
		}
		return out
	}
	return v
}

// sameJSON compares got (parsed from YAML) with want as JSON documents.
func sameJSON(t *testing.T, what string, got any, want policy.Document) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var gv, wv any
	if err := json.Unmarshal(g, &gv); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want.JSON(), &wv); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gv, wv) {
		gi, _ := json.MarshalIndent(gv, "", "  ")
		t.Errorf("%s in %s differs from package policy's:\n--- template\n%s\n--- package policy\n%s", what, templatePath, gi, want.JSON())
	}
}

func walk(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for _, x := range v {
			walk(x, f)
		}
	case []any:
		for _, x := range v {
			walk(x, f)
		}
	}
}

func get(v any, path ...string) any {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

func list(v any) []any { l, _ := v.([]any); return l }

func only(t *testing.T, docs []any, kind string) map[string]any {
	t.Helper()
	var found []map[string]any
	for _, d := range docs {
		if m, ok := d.(map[string]any); ok && m["kind"] == kind {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d objects of kind %s, want 1", len(found), kind)
	}
	return found[0]
}

// loadYAML decodes every document of a YAML file into maps, lists and
// scalars. CloudFormation's short forms become their long forms (!Sub X
// is {"Fn::Sub": X}, !GetAtt A.B is {"Fn::GetAtt": [A, B]}); any other
// unknown tag is an error, as yaml.v3 would otherwise drop it silently.
func loadYAML(path string) ([]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var docs []any
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		v, err := convert(&n)
		if err != nil {
			return nil, err
		}
		if v != nil {
			docs = append(docs, v)
		}
	}
}

var cfnTags = []string{"Ref", "Sub", "GetAtt", "Join", "Select", "Split", "If", "Equals", "Not", "And", "Or", "FindInMap", "Base64", "Cidr", "ImportValue", "GetAZs", "Condition", "Transform", "Length", "ToJsonString"}

func convert(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return convert(n.Content[0])
	case yaml.AliasNode:
		return convert(n.Alias)
	}
	var v any
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			x, err := convert(val)
			if err != nil {
				return nil, err
			}
			if k.Tag == "!!merge" {
				merged, ok := x.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("line %d: merge of a non-mapping", k.Line)
				}
				for mk, mv := range merged {
					if _, set := m[mk]; !set {
						m[mk] = mv
					}
				}
				continue
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key that is not a scalar", k.Line)
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %q repeated", k.Line, k.Value)
			}
			m[k.Value] = x
		}
		v = m
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			x, err := convert(c)
			if err != nil {
				return nil, err
			}
			l = append(l, x)
		}
		v = l
	case yaml.ScalarNode:
		if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
			v = n.Value
		} else if err := n.Decode(&v); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
	}
	if !strings.HasPrefix(n.Tag, "!") || strings.HasPrefix(n.Tag, "!!") {
		return v, nil
	}
	name := n.Tag[1:]
	if !slices.Contains(cfnTags, name) {
		return nil, fmt.Errorf("line %d: unknown tag %s", n.Line, n.Tag)
	}
	switch name {
	case "Ref", "Condition":
		return map[string]any{name: v}, nil
	case "GetAtt":
		if s, ok := v.(string); ok {
			res, attr, _ := strings.Cut(s, ".")
			v = []any{res, attr}
		}
	}
	return map[string]any{"Fn::" + name: v}, nil
}
