package policy

// Match is match, for the tests of package policy_test.
var Match = match
