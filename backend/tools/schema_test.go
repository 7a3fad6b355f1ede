package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSchemaOf(t *testing.T) {
	var s struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Props      map[string]json.RawMessage `json:"properties"`
		Additional bool                       `json:"additionalProperties"`
	}
	if err := json.Unmarshal(SchemaOf[ShellExecParams](), &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || strings.Join(s.Required, ",") != "command" || s.Additional {
		t.Fatalf("schema = %+v", s)
	}
	for name, want := range map[string]string{"command": `"string"`, "timeout_ms": `"integer"`, "env": `"object"`} {
		var p map[string]json.RawMessage
		_ = json.Unmarshal(s.Props[name], &p)
		if string(p["type"]) != want {
			t.Errorf("%s: type %s, want %s", name, p["type"], want)
		}
	}
}

func TestEveryBuiltinHasAValidSchema(t *testing.T) {
	reg, err := Builtins(testCage(t), NewMonitors(testCage(t)), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.List()) != 10 {
		t.Fatalf("want 10 built-in tools, got %d", len(reg.List()))
	}
	for _, tool := range reg.List() {
		var m map[string]any
		if err := json.Unmarshal(tool.Schema(), &m); err != nil || m["type"] != "object" {
			t.Errorf("%s: schema %s (%v)", tool.Name(), tool.Schema(), err)
		}
		if tool.Description() == "" || tool.Risk() == "" {
			t.Errorf("%s: missing description or risk", tool.Name())
		}
	}
}

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name, args, err string
	}{
		{"ok", `{"command":"ls","timeout_ms":5}`, ""},
		{"missing field", `{}`, `missing required argument "command"`},
		{"null field", `{"command":null}`, `missing required argument "command"`},
		{"wrong type", `{"command":"ls","timeout_ms":"5"}`, `argument "timeout_ms" must be a JSON integer, not string`},
		{"unknown field", `{"command":"ls","cmd":"x"}`, `unknown argument "cmd"`},
		{"not an object", `["ls"]`, "arguments must be a JSON object"},
		{"not JSON", `{command`, "arguments must be a JSON object"},
		{"empty means no arguments", ``, `missing required argument "command"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeArgs[ShellExecParams](json.RawMessage(tc.args))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tc.err {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

func FuzzDecodeArgs(f *testing.F) {
	f.Add(`{"command":"ls","env":{"A":"b"}}`)
	f.Add(`{"command":1}`)
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = decodeArgs[ShellExecParams](json.RawMessage(s))
		_, _ = decodeArgs[PatchApplyParams](json.RawMessage(s))
	})
}

func TestRegistry(t *testing.T) {
	r, err := NewRegistry(NewFsRead(), NewFsWrite())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Register(NewFsRead()); err == nil {
		t.Fatal("duplicate name accepted")
	}
	if _, ok := r.Get("fs.write"); !ok {
		t.Fatal("fs.write not found")
	}
	if _, ok := r.Get("nope"); ok {
		t.Fatal("found a tool that was never registered")
	}
	if l := r.List(); len(l) != 2 || l[0].Name() != "fs.read" {
		t.Fatalf("List = %v", l)
	}
}

// SchemaMatches holds a hand schema to its type: a missing, extra or
// wrongly required property, or a schema that takes unknown properties,
// is refused.
func TestSchemaMatches(t *testing.T) {
	type args struct {
		Path string `json:"path"`
		N    int    `json:"n,omitempty"`
		skip string
	}
	cases := []struct {
		name, schema string
		ok           bool
	}{
		{"the type's own", `{"type":"object","properties":{"path":{},"n":{}},"required":["path"],"additionalProperties":false}`, true},
		{"a property missing", `{"type":"object","properties":{"path":{}},"additionalProperties":false}`, false},
		{"an extra property", `{"type":"object","properties":{"path":{},"n":{},"x":{}},"additionalProperties":false}`, false},
		{"an unknown required", `{"type":"object","properties":{"path":{},"n":{}},"required":["x"],"additionalProperties":false}`, false},
		{"unknown properties taken", `{"type":"object","properties":{"path":{},"n":{}}}`, false},
		{"not an object", `{"type":"array"}`, false},
		{"not JSON", `{`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := SchemaMatches[args](json.RawMessage(tc.schema)); (err == nil) != tc.ok {
				t.Fatalf("SchemaMatches = %v, want ok %v", err, tc.ok)
			}
		})
	}
	_ = args{skip: ""}
}
