package main

import (
	"errors"
	"fmt"

	"github.com/fencedstore/fence/objstore"
)

// fenced formats a rejected write's error (exit 3), naming both tokens.
func fenced(op string, err error) error {
	var fe *objstore.FencedError
	if errors.As(err, &fe) {
		var why string
		switch {
		case fe.Issued != 0:
			why = fmt.Sprintf("the coordinator has issued token %d for domain %q since", fe.Issued, fe.Domain)
		case fe.Token == fe.Highest:
			why = fmt.Sprintf("another acquisition already claimed it in domain %q (the coordinator issued it twice)", fe.Domain)
		default:
			why = fmt.Sprintf("the domain %q has accepted token %d", fe.Domain, fe.Highest)
		}
		return &exitErr{code: exitFenced, err: fmt.Errorf("%s rejected: token %d is fenced: %s; acquire a new lease", op, fe.Token, why)}
	}
	return fail(fmt.Errorf("%s: %w", op, err))
}
