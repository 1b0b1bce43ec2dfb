package faults

import (
	"crypto/rand"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Environment variables. The FENCE_TEST_* ones are set by
// deploy/local/test.sh (deploy/local/servers.sh).
const (
	envS3       = "FENCE_TEST_S3_ENDPOINT"
	envDynamo   = "FENCE_TEST_DYNAMODB_ENDPOINT"
	envMinioBin = "FENCE_TEST_MINIO_BIN"
	envDynaBin  = "FENCE_TEST_DYNALITE_BIN"
	// The emulators of the gcs-* and azure-* kinds, which the suite
	// neither starts nor kills: fake-gcs-server's base URL, and Azurite's
	// blob service URL (http://HOST:PORT/ACCOUNT) with its account and
	// shared key. Without them those kinds skip.
	envGCS          = "FENCE_TEST_GCS_ENDPOINT"
	envAzure        = "FENCE_TEST_AZURE_ENDPOINT"
	envAzureAccount = "FENCE_TEST_AZURE_ACCOUNT"
	envAzureKey     = "FENCE_TEST_AZURE_KEY"
	// envSeed fixes the suite's seed (each run's seed derives from it, or
	// is it when one kind is selected) to replay a run.
	envSeed = "FENCE_FAULTS_SEED"
	// envKinds selects fault kinds and controls, comma-separated.
	envKinds = "FENCE_FAULTS_KINDS"
	// envSoak turns on the long mode for this long (for example 30m).
	envSoak = "FENCE_SOAK"
	// envOut is where reports (and, on failure, histories) are written.
	envOut = "FENCE_FAULTS_OUT"
	// envKeep keeps every run's history, not only failing ones.
	envKeep = "FENCE_FAULTS_KEEP"
	// envRound starts at this round (seeds depend on the round), to
	// replay a long mode's round: with FENCE_SOAK=1s it runs that round
	// alone, with the long mode's fault phases.
	envRound = "FENCE_FAULTS_ROUND"
)

type environment struct {
	s3, dynamo            string
	minioBin, dynaliteBin string
	accessKey, secretKey  string
	gcs                   string // fake-gcs-server's base URL, or ""
	azure                 azureServer
	seed                  uint64
	seedFixed             bool
	kinds                 []string
	soak                  time.Duration
	round                 int
	out                   string
	keep                  bool
}

// loadEnv reads the environment, or skips t when the servers are not
// configured.
func loadEnv(t *testing.T) environment {
	t.Helper()
	e := environment{
		s3: os.Getenv(envS3), dynamo: os.Getenv(envDynamo),
		minioBin: os.Getenv(envMinioBin), dynaliteBin: os.Getenv(envDynaBin),
		accessKey: os.Getenv("AWS_ACCESS_KEY_ID"), secretKey: os.Getenv("AWS_SECRET_ACCESS_KEY"),
		out: os.Getenv(envOut), keep: os.Getenv(envKeep) != "",
		gcs:   os.Getenv(envGCS),
		azure: azureServer{endpoint: os.Getenv(envAzure), account: os.Getenv(envAzureAccount), key: os.Getenv(envAzureKey)},
	}
	if os.Getenv("FENCE_FAULTS") == "0" {
		t.Skip("faults: FENCE_FAULTS=0 skips the fault suite")
	}
	if e.s3 == "" || e.dynamo == "" {
		t.Skipf("faults: needs MinIO and dynalite: set %s and %s, and %s and %s for the servers this suite starts, kills and restarts itself (bash deploy/local/test.sh sets all four)", envS3, envDynamo, envMinioBin, envDynaBin)
	}
	if e.minioBin == "" || e.dynaliteBin == "" {
		t.Skipf("faults: %s and %s must name the MinIO and dynalite executables (bash deploy/local/test.sh sets them): the suite kills and restarts servers of its own", envMinioBin, envDynaBin)
	}
	if e.accessKey == "" || e.secretKey == "" {
		t.Skip("faults: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set (bash deploy/local/test.sh sets them)")
	}
	if e.azure.endpoint != "" && (e.azure.account == "" || e.azure.key == "") {
		t.Fatalf("faults: %s is set but %s or %s is not (bash deploy/local/test.sh sets all three)", envAzure, envAzureAccount, envAzureKey)
	}
	if os.Getenv("AWS_REGION") == "" {
		t.Setenv("AWS_REGION", "us-east-1")
	}
	if s := os.Getenv(envSeed); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", envSeed, s, err)
		}
		e.seed, e.seedFixed = v, true
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:])
		e.seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}
	if s := os.Getenv(envKinds); s != "" {
		for k := range strings.SplitSeq(s, ",") {
			if k = strings.TrimSpace(k); k != "" {
				e.kinds = append(e.kinds, k)
			}
		}
	}
	if s := os.Getenv(envSoak); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("%s=%q: %v", envSoak, s, err)
		}
		e.soak = d
	}
	if s := os.Getenv(envRound); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			t.Fatalf("%s=%q: want a round number", envRound, s)
		}
		e.round = n
	}
	if e.out == "" {
		e.out = os.TempDir()
	}
	return e
}
