package policy

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Version is the policy language version of every document here.
const Version = "2012-10-17"

// Document is an AWS policy document.
type Document struct {
	Version   string      `json:"Version"`
	Statement []Statement `json:"Statement"`
}

// Statement is one statement of a Document. Action and Resource are
// always lists; Principal is "*" or absent.
type Statement struct {
	Sid       string                       `json:"Sid,omitempty"`
	Effect    string                       `json:"Effect"`
	Principal any                          `json:"Principal,omitempty"`
	Action    []string                     `json:"Action"`
	Resource  []string                     `json:"Resource"`
	Condition map[string]map[string]string `json:"Condition,omitempty"`
}

// JSON returns d indented, with a final newline.
func (d Document) JSON() []byte {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		panic(err) // a Document always encodes
	}
	return append(b, '\n')
}

// Actions returns the actions d allows, each once, in order of first
// appearance.
func (d Document) Actions() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range d.Statement {
		if s.Effect != "Allow" {
			continue
		}
		for _, a := range s.Action {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// Allows reports whether d allows action on resource (an ARN), by its
// Allow statements' action names and resource patterns ("*" matches any
// run of characters, "?" one), ignoring conditions.
func (d Document) Allows(action, resource string) bool {
	for _, s := range d.Statement {
		if s.Effect != "Allow" {
			continue
		}
		for _, a := range s.Action {
			if a != action {
				continue
			}
			for _, r := range s.Resource {
				if match(r, resource) {
					return true
				}
			}
		}
	}
	return false
}

// match reports whether s matches an IAM resource pattern.
func match(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if match(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			pattern, s = pattern[1:], s[1:]
		default:
			if s == "" || s[0] != pattern[0] {
				return false
			}
			pattern, s = pattern[1:], s[1:]
		}
	}
	return s == ""
}

// parse decodes a policy document as S3 returns it: Action, Resource and
// condition values may each be a string or a list.
func parse(raw string) (Document, error) {
	var loose struct {
		Version   string `json:"Version"`
		Statement []struct {
			Sid       string                                `json:"Sid"`
			Effect    string                                `json:"Effect"`
			Principal any                                   `json:"Principal"`
			Action    stringList                            `json:"Action"`
			Resource  stringList                            `json:"Resource"`
			Condition map[string]map[string]json.RawMessage `json:"Condition"`
		} `json:"Statement"`
	}
	if err := json.Unmarshal([]byte(raw), &loose); err != nil {
		return Document{}, fmt.Errorf("policy: the bucket policy is not a JSON policy document: %w", err)
	}
	d := Document{Version: loose.Version}
	for _, s := range loose.Statement {
		st := Statement{Sid: s.Sid, Effect: s.Effect, Principal: s.Principal, Action: s.Action, Resource: s.Resource}
		for op, kv := range s.Condition {
			for k, v := range kv {
				var one string
				if json.Unmarshal(v, &one) != nil {
					var many []string
					if json.Unmarshal(v, &many) != nil || len(many) != 1 {
						one = string(v) // kept as written; it will not equal ours
					} else {
						one = many[0]
					}
				}
				if st.Condition == nil {
					st.Condition = map[string]map[string]string{}
				}
				if st.Condition[op] == nil {
					st.Condition[op] = map[string]string{}
				}
				st.Condition[op][strings.ToLower(k)] = one
			}
		}
		d.Statement = append(d.Statement, st)
	}
	return d, nil
}

// stringList decodes a JSON string or list of strings.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*l = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*l = many
	return nil
}
