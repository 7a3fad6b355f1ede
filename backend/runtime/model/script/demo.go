package script

import (
	_ "embed"
	"fmt"
)

//go:embed demo.json
var demoJSON []byte

// DemoLabel is the Model() of the demo provider.
const DemoLabel = "demo"

// DemoJSON returns the demo script's file content, for display or copying
// as a starting point for a script of one's own.
func DemoJSON() []byte { return append([]byte(nil), demoJSON...) }

// Demo parses the built-in demo script: a read (fs.list), a workspace write
// (fs.write), a destructive command (rm -rf build) and a network request
// (curl https://example.com), then a closing message. Its first and last
// messages say plainly that it is a demo.
func Demo() (*Script, error) {
	s, err := Parse(demoJSON)
	if err != nil {
		return nil, fmt.Errorf("built-in demo script: %w", err)
	}
	return s, nil
}

// NewDemo builds the demo provider.
func NewDemo(opts Options) (*Provider, error) {
	s, err := Demo()
	if err != nil {
		return nil, err
	}
	if opts.Label == "" {
		opts.Label = DemoLabel
	}
	return New(s, opts), nil
}
