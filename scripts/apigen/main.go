// Command apigen writes what the one API definition (backend/api) implies
// for the places that cannot read it at run time: the desktop window's Wails
// methods (app/api_gen.go; Wails binds methods it finds by reflection on a
// struct, so they must exist in source) and the frontend bridge's
// TypeScript (frontend/src/bridge/api.gen.ts). The HTTP server reads the
// definition itself.
//
//	go run ./scripts/apigen -write   rewrite both files
//	go run ./scripts/apigen -check   fail if either is stale
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/warden-dev/warden/backend/api"
)

// The generated files, relative to the repository root.
const (
	goOut = "app/api_gen.go"
	tsOut = "frontend/src/bridge/api.gen.ts"
)

func main() {
	write := flag.Bool("write", false, "rewrite the generated files")
	check := flag.Bool("check", false, "fail if a generated file is stale")
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	if *write == *check {
		fmt.Fprintln(os.Stderr, "usage: apigen -write|-check [-root DIR]")
		os.Exit(2)
	}
	files, err := generate(api.Methods())
	if err != nil {
		fmt.Fprintln(os.Stderr, "apigen:", err)
		os.Exit(1)
	}
	stale := 0
	for _, f := range files {
		path := filepath.Join(*root, f.path)
		if *write {
			if err := os.WriteFile(path, f.body, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "apigen:", err)
				os.Exit(1)
			}
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(old, f.body) {
			fmt.Fprintf(os.Stderr, "apigen: %s is stale; run 'make bindings' and commit the result\n", f.path)
			stale++
		}
	}
	if stale > 0 {
		os.Exit(1)
	}
}

type file struct {
	path string
	body []byte
}

// generate renders every output from the method list.
func generate(ms []*api.Method) ([]file, error) {
	g, err := renderGo(ms)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", goOut, err)
	}
	ts, err := renderTS(ms)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tsOut, err)
	}
	return []file{{goOut, g}, {tsOut, ts}}, nil
}
