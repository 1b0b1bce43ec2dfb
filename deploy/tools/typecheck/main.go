// Command typecheck type-checks Go packages, and every package they
// import, from source for another platform, without compiling them:
//
//	go run ./typecheck -goos windows -goarch amd64 -C ../.. ./cmd/fence
//
// deploy/local/test.sh runs it so that every test run shows fence still
// builds for Windows (a release platform that no test runs on): the
// compiler would report the same type errors, undefined names and
// missing methods, at several times the cost, since it would compile
// every dependency for Windows too. What only a link would find (a
// missing assembly body) is left to the release build of every platform
// (FENCE_RELEASE_ALL=1, docs/release.md).
package main

import (
	"flag"
	"fmt"
	"os"

	"golang.org/x/tools/go/packages"
)

func main() {
	dir := flag.String("C", ".", "the module directory the patterns are relative to")
	goos := flag.String("goos", "windows", "the GOOS to type-check for")
	goarch := flag.String("goarch", "amd64", "the GOARCH to type-check for")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: typecheck [-C DIR] PACKAGE...")
		os.Exit(2)
	}
	cfg := &packages.Config{
		Dir: *dir,
		// A static build, as the release's (CGO_ENABLED=0).
		Env: append(os.Environ(), "GOOS="+*goos, "GOARCH="+*goarch, "CGO_ENABLED=0"),
		// Syntax and types of every package, dependencies included:
		// each is type-checked from its source, function bodies too.
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps |
			packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
	}
	pkgs, err := packages.Load(cfg, flag.Args()...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "typecheck: %v\n", err)
		os.Exit(1)
	}
	n := 0
	packages.Visit(pkgs, nil, func(p *packages.Package) { n++ })
	if packages.PrintErrors(pkgs) > 0 {
		os.Exit(1)
	}
	fmt.Printf("typecheck: %d packages type-check for %s/%s\n", n, *goos, *goarch)
}
