package main

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/api"
	"github.com/warden-dev/warden/backend/checkpoint"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/store"
)

// tsNames renames Go types whose own names would clash in TypeScript
// (Event is the DOM's) or read badly without their package.
var tsNames = map[reflect.Type]string{
	reflect.TypeFor[runtime.Event]():          "WardenEvent",
	reflect.TypeFor[runtime.Info]():           "AppInfo",
	reflect.TypeFor[runtime.McpInfo]():        "McpCallInfo",
	reflect.TypeFor[runtime.Approval]():       "Approval",
	reflect.TypeFor[mcp.ServerStatus]():       "McpServer",
	reflect.TypeFor[mcp.ServerState]():        "McpServerState",
	reflect.TypeFor[mcp.TrustStatus]():        "McpTrust",
	reflect.TypeFor[mcp.ToolStatus]():         "McpTool",
	reflect.TypeFor[mcp.TrustScope]():         "McpTrustLevel",
	reflect.TypeFor[mcp.Transport]():          "McpTransport",
	reflect.TypeFor[config.Preset]():          "NetworkPreset",
	reflect.TypeFor[policy.GrantScope]():      "GrantScope",
	reflect.TypeFor[checkpoint.Change]():      "ChangeSet",
	reflect.TypeFor[runtime.Sandbox]():        "Sandbox",
	reflect.TypeFor[policy.SandboxKind]():     "SandboxKind",
	reflect.TypeFor[store.WorkspaceChanged](): "WorkspaceChange",
}

// pushed are types the bridge receives in pushed events' data rather than
// as a method's result; they are declared too.
var pushed = []reflect.Type{reflect.TypeFor[store.WorkspaceChanged]()}

// tsAliases are named unions for `ts` tags to use, spelled from Go
// constants.
var tsAliases = map[string]string{
	"ProviderId": union([]string{model.KindDemo, model.KindAnthropic, model.KindOpenAI, model.KindScript}),
	// Where the key comes from: nowhere, the file, or an environment variable.
	"ApiKeySource": "'' | 'config' | `env:${string}`",
}

// stringEnums are string types with a fixed set of values, spelled from
// their Go constants. A string type not listed is a plain string.
var stringEnums = map[reflect.Type][]string{
	reflect.TypeFor[policy.Risk]():       {string(policy.RiskLow), string(policy.RiskMedium), string(policy.RiskHigh)},
	reflect.TypeFor[policy.GrantScope](): {string(policy.ScopeSession), string(policy.ScopeWorkspace)},
	reflect.TypeFor[mcp.ServerState](): {string(mcp.StateIdle), string(mcp.StateStarting), string(mcp.StateRunning),
		string(mcp.StateCrashed), string(mcp.StateFailed), string(mcp.StateStopped), string(mcp.StateAwaitingTrust)},
	reflect.TypeFor[mcp.Transport]():  {string(mcp.TransportStdio), string(mcp.TransportHTTP)},
	reflect.TypeFor[mcp.TrustScope](): {string(mcp.TrustSession), string(mcp.TrustPersistent)},
}

var (
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	timeType      = reflect.TypeFor[time.Time]()
	rawType       = reflect.TypeFor[json.RawMessage]()
)

// tsGen collects the declarations the methods reach.
type tsGen struct {
	decls map[string]string       // TS name → declaration
	owner map[string]reflect.Type // TS name → the Go type it was made from
}

// renderTS writes the interfaces of every type a method takes or returns,
// the method table and the transport lists.
func renderTS(ms []*api.Method) ([]byte, error) {
	g := &tsGen{decls: map[string]string{}, owner: map[string]reflect.Type{}}
	var table, windowOnly, httpOnly bytes.Buffer
	for _, m := range ms {
		req, res := "undefined", "null"
		var err error
		if m.Request != noneType {
			if req, err = g.ref(m.Request); err != nil {
				return nil, fmt.Errorf("%s request: %w", m.Name, err)
			}
		}
		if m.Response != noneType {
			if res, err = g.ref(m.Response); err != nil {
				return nil, fmt.Errorf("%s response: %w", m.Name, err)
			}
			if m.NullableResult {
				res += " | null"
			}
		}
		fmt.Fprintf(&table, "  // %s %s\n  %s: [%s, %s]\n", m.Name, m.Doc, m.Name, req, res)
		switch m.Transports {
		case api.Window:
			fmt.Fprintf(&windowOnly, "  '%s',\n", m.Name)
		case api.HTTP:
			fmt.Fprintf(&httpOnly, "  '%s',\n", m.Name)
		}
	}
	for _, t := range pushed {
		if _, err := g.ref(t); err != nil {
			return nil, err
		}
	}
	words, err := g.words()
	if err != nil {
		return nil, err
	}
	for n, a := range tsAliases {
		if _, ok := g.decls[n]; ok {
			return nil, fmt.Errorf("alias %s is also a Go type's name", n)
		}
		g.decls[n] = "export type " + n + " = " + a + "\n"
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "// %s\n// The API's types as Go marshals them (backend/api lists the methods).\n", header)
	names := make([]string, 0, len(g.decls))
	for n := range g.decls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out.WriteString("\n" + g.decls[n])
	}
	out.WriteString("\n// The method table: name → [request, result].\nexport interface Methods {\n")
	out.Write(table.Bytes())
	out.WriteString("}\n\n// Methods only the desktop window has (native dialogs, its probe).\nexport const windowOnly = [\n")
	out.Write(windowOnly.Bytes())
	out.WriteString("] as const\n\n// Methods only `warden serve` has.\nexport const httpOnly = [\n")
	out.Write(httpOnly.Bytes())
	out.WriteString("] as const\n")
	out.WriteString(words)
	return out.Bytes(), nil
}

// name is the TypeScript name of a named Go type.
func (g *tsGen) name(t reflect.Type) (string, error) {
	n, ok := tsNames[t]
	if !ok {
		n = t.Name()
	}
	if prev, ok := g.owner[n]; ok && prev != t {
		return "", fmt.Errorf("%s and %s are both %s in TypeScript: name one in tsNames", prev, t, n)
	}
	g.owner[n] = t
	return n, nil
}

// ref spells a reference to t, declaring named types on first use.
func (g *tsGen) ref(t reflect.Type) (string, error) {
	switch {
	case t == timeType:
		return "string", nil
	case t == rawType:
		return "unknown", nil
	}
	if vals, ok := stringEnums[t]; ok {
		return g.declare(t, func() (string, error) { return union(vals), nil })
	}
	if t.Kind() != reflect.Pointer && (t.Implements(textMarshaler) || t.Implements(jsonMarshaler)) {
		vals, ok := intEnum(t)
		if !ok {
			return "", fmt.Errorf("%s marshals itself: the generator cannot know its JSON (list it as an enum or give the field a ts tag)", t)
		}
		return g.declare(t, func() (string, error) { return union(vals), nil })
	}
	switch t.Kind() {
	case reflect.String:
		return "string", nil
	case reflect.Bool:
		return "boolean", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number", nil
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "unknown", nil
		}
	case reflect.Pointer:
		e, err := g.ref(t.Elem())
		return e + " | null", err
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string", nil // base64
		}
		e, err := g.ref(t.Elem())
		if strings.Contains(e, " ") {
			e = "(" + e + ")"
		}
		return e + "[]", err
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return "", fmt.Errorf("map key %s: only string keys are JSON objects", t.Key())
		}
		e, err := g.ref(t.Elem())
		return "Record<string, " + e + ">", err
	case reflect.Struct:
		if t.Name() == "" {
			return "", fmt.Errorf("anonymous struct %s: give it a name", t)
		}
		return g.declare(t, func() (string, error) { return g.object(t) })
	}
	return "", fmt.Errorf("%s (%s) has no JSON form", t, t.Kind())
}

// declare emits `export type|interface Name ...` once and returns Name.
func (g *tsGen) declare(t reflect.Type, body func() (string, error)) (string, error) {
	n, err := g.name(t)
	if err != nil {
		return "", err
	}
	if _, ok := g.decls[n]; ok {
		return n, nil
	}
	g.decls[n] = "" // a recursive type refers to itself by name
	b, err := body()
	if err != nil {
		delete(g.decls, n)
		return "", fmt.Errorf("%s: %w", t, err)
	}
	if strings.HasPrefix(b, "{") {
		g.decls[n] = "export interface " + n + " " + b + "\n"
	} else {
		g.decls[n] = "export type " + n + " = " + b + "\n"
	}
	return n, nil
}

// object spells a struct's JSON object as encoding/json writes it.
func (g *tsGen) object(t reflect.Type) (string, error) {
	var b strings.Builder
	b.WriteString("{\n")
	if err := g.fields(t, &b); err != nil {
		return "", err
	}
	b.WriteString("}")
	return b.String(), nil
}

func (g *tsGen) fields(t reflect.Type, b *strings.Builder) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if tag == "-" {
			continue
		}
		if f.Anonymous && !hasTag {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if err := g.fields(ft, b); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() && !(f.Anonymous && f.Type.Kind() == reflect.Struct) {
			continue // encoding/json keeps a tagged embedded struct, exported or not
		}
		if name == "" {
			name = f.Name
		}
		optional := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		var ts string
		if over, ok := f.Tag.Lookup("ts"); ok {
			// The override may name the types the Go type reaches (McpTool[]
			// | null), so they are declared all the same; a type the
			// generator cannot spell is what an override is for.
			_, _ = g.ref(f.Type)
			ts = over
		} else {
			ft := f.Type
			if optional && ft.Kind() == reflect.Pointer {
				ft = ft.Elem() // an omitted nil, never null
			}
			var err error
			if ts, err = g.ref(ft); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		q := ""
		if optional {
			q = "?"
		}
		fmt.Fprintf(b, "  %s%s: %s\n", name, q, ts)
	}
	return nil
}

// intEnum lists the values of an integer type that marshals itself as
// text, counting up from zero until MarshalText refuses.
func intEnum(t reflect.Type) ([]string, bool) {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
	default:
		return nil, false
	}
	if !t.Implements(textMarshaler) {
		return nil, false
	}
	var vals []string
	for i := int64(0); i < 256; i++ {
		v := reflect.New(t).Elem()
		v.SetInt(i)
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			break
		}
		vals = append(vals, string(b))
	}
	return vals, len(vals) > 0
}

func union(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + strings.ReplaceAll(v, "'", "\\'") + "'"
	}
	return strings.Join(q, " | ")
}
