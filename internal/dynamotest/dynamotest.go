// Package dynamotest names the DynamoDB implementations the integration
// tests run against, so that a test runs once on each: dynalite and AWS's
// own DynamoDB Local, both started by deploy/local/servers.sh, which
// exports their endpoints.
package dynamotest

import (
	"os"
	"testing"
)

// Server is one DynamoDB implementation, found through an environment
// variable that holds its endpoint.
type Server struct {
	Name string // the subtest's name: "dynalite" or "DynamoDBLocal"
	Env  string // the variable that holds its endpoint, http://127.0.0.1:PORT
	What string // what it is, for messages
	Note string // what it needs, for the message when its variable is unset
}

// Servers lists every implementation, dynalite first.
var Servers = []Server{
	{Name: "dynalite", Env: "FENCE_TEST_DYNAMODB_ENDPOINT", What: "dynalite", Note: "it needs Node.js and npm"},
	{Name: "DynamoDBLocal", Env: "FENCE_TEST_DYNAMODB_LOCAL_ENDPOINT", What: "AWS's DynamoDB Local", Note: "it needs Java 17 or later"},
}

// Endpoint returns the server's endpoint, or "" when its variable is
// unset.
func (s Server) Endpoint() string { return os.Getenv(s.Env) }

// SkipMessage says that the server's variable is unset and how to set it.
func (s Server) SkipMessage() string {
	return s.Env + " is not set, so this does not run against " + s.What + "; bash deploy/local/test.sh starts it and sets the variable (" + s.Note + ")"
}

// Run runs f in one subtest per server, named after it, with the server's
// endpoint. The subtest of a server whose variable is unset skips, naming
// the variable.
func Run(t *testing.T, f func(t *testing.T, endpoint string)) {
	t.Helper()
	for _, s := range Servers {
		t.Run(s.Name, func(t *testing.T) {
			ep := s.Endpoint()
			if ep == "" {
				t.Skip(s.SkipMessage())
			}
			f(t, ep)
		})
	}
}
