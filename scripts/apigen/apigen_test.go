package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/api"
)

type level int

func (l level) MarshalText() ([]byte, error) {
	if l < 0 || l > 2 {
		return nil, os.ErrInvalid
	}
	return []byte([]string{"low", "mid", "high"}[l]), nil
}

type selfJSON struct{}

func (selfJSON) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

type inner struct {
	Deep string `json:"deep"`
}

type hidden struct {
	Promoted int `json:"promoted"`
}

type (
	plain struct {
		S string  `json:"s"`
		B bool    `json:"b"`
		I int64   `json:"i"`
		F float64 `json:"f"`
		N string  // no tag: Go's name
	}
	optional struct {
		O string `json:"o,omitempty"`
		Z int    `json:"z,omitzero"`
	}
	pointers struct {
		Null *inner `json:"null"`
		Opt  *inner `json:"opt,omitempty"`
	}
	skipped struct {
		Keep    string `json:"keep"`
		Dash    string `json:"-"`
		private string
	}
	embedded struct {
		hidden
		inner `json:"named"`
		Own   string `json:"own"`
	}
	specials struct {
		Raw   json.RawMessage `json:"raw"`
		At    time.Time       `json:"at"`
		Bytes []byte          `json:"bytes"`
		Any   any             `json:"any"`
		M     map[string]int  `json:"m"`
		L     []*inner        `json:"l"`
	}
	overridden struct {
		Answer string   `json:"answer" ts:"'once' | 'deny'"`
		Inners []inner  `json:"inners" ts:"inner[] | null"`
		Self   selfJSON `json:"self" ts:"number"`
	}
	enums struct {
		L level `json:"l"`
	}
	refusedSelf struct {
		X selfJSON `json:"x"`
	}
	refusedFunc struct {
		F func() `json:"f"`
	}
	refusedChan struct {
		C chan int `json:"c"`
	}
	refusedKey struct {
		M map[int]string `json:"m"`
	}
	refusedAnon struct {
		A struct{ X int } `json:"a"`
	}
)

func TestTSDeclarations(t *testing.T) {
	cases := []struct {
		name string
		typ  reflect.Type
		want map[string]string // TS name → declaration
	}{
		{"basic kinds; a field without a tag keeps Go's name", reflect.TypeFor[plain](),
			map[string]string{"plain": "export interface plain {\n  s: string\n  b: boolean\n  i: number\n  f: number\n  N: string\n}\n"}},
		{"omitempty and omitzero are optional", reflect.TypeFor[optional](),
			map[string]string{"optional": "export interface optional {\n  o?: string\n  z?: number\n}\n"}},
		{"a pointer is null when not omitted, optional when omitempty", reflect.TypeFor[pointers](),
			map[string]string{"pointers": "export interface pointers {\n  null: inner | null\n  opt?: inner\n}\n",
				"inner": "export interface inner {\n  deep: string\n}\n"}},
		{"json:\"-\" and unexported fields are left out", reflect.TypeFor[skipped](),
			map[string]string{"skipped": "export interface skipped {\n  keep: string\n}\n"}},
		{"an untagged embedded struct is flattened, a tagged one is a field", reflect.TypeFor[embedded](),
			map[string]string{"embedded": "export interface embedded {\n  promoted: number\n  named: inner\n  own: string\n}\n",
				"inner": "export interface inner {\n  deep: string\n}\n"}},
		{"raw JSON, time, bytes, any, maps, slices of pointers", reflect.TypeFor[specials](),
			map[string]string{"specials": "export interface specials {\n  raw: unknown\n  at: string\n  bytes: string\n  any: unknown\n  m: Record<string, number>\n  l: (inner | null)[]\n}\n",
				"inner": "export interface inner {\n  deep: string\n}\n"}},
		{"a ts tag overrides the field's type; the types it reaches are still declared", reflect.TypeFor[overridden](),
			map[string]string{"overridden": "export interface overridden {\n  answer: 'once' | 'deny'\n  inners: inner[] | null\n  self: number\n}\n",
				"inner": "export interface inner {\n  deep: string\n}\n"}},
		{"an int that marshals as text is the union of its values", reflect.TypeFor[enums](),
			map[string]string{"enums": "export interface enums {\n  l: level\n}\n", "level": "export type level = 'low' | 'mid' | 'high'\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := &tsGen{decls: map[string]string{}, owner: map[string]reflect.Type{}}
			if _, err := g.ref(tc.typ); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g.decls, tc.want) {
				t.Errorf("declarations:\n%v\nwant:\n%v", g.decls, tc.want)
			}
		})
	}
}

func TestTSRefusesWhatItCannotSpell(t *testing.T) {
	cases := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"a type that marshals itself", reflect.TypeFor[refusedSelf](), "marshals itself"},
		{"a func", reflect.TypeFor[refusedFunc](), "no JSON form"},
		{"a channel", reflect.TypeFor[refusedChan](), "no JSON form"},
		{"a map with int keys", reflect.TypeFor[refusedKey](), "only string keys"},
		{"an anonymous struct", reflect.TypeFor[refusedAnon](), "anonymous struct"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := &tsGen{decls: map[string]string{}, owner: map[string]reflect.Type{}}
			_, err := g.ref(tc.typ)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// Two Go types of the same name in different packages would silently merge
// in TypeScript; the generator refuses instead.
func TestTSRefusesANameClash(t *testing.T) {
	type Session struct {
		X int `json:"x"`
	}
	g := &tsGen{decls: map[string]string{}, owner: map[string]reflect.Type{}}
	if _, err := g.ref(reflect.TypeFor[api.SessionArgs]()); err != nil {
		t.Fatal(err)
	}
	g.owner["Session"] = reflect.TypeFor[api.SessionArgs]()
	if _, err := g.ref(reflect.TypeFor[Session]()); err == nil || !strings.Contains(err.Error(), "both Session") {
		t.Fatalf("err = %v, want a clash", err)
	}
}

func TestGoWrappers(t *testing.T) {
	none := reflect.TypeFor[api.None]()
	cases := []struct {
		name string
		m    api.Method
		want string // "" when nothing is generated
	}{
		{"no request, a slice result", api.Method{Name: "List", Doc: "lists.", Transports: api.Both, Request: none, Response: reflect.TypeFor[[]api.SavedFile]()},
			"// List lists.\nfunc (a *App) List() ([]api.SavedFile, error) {\n\treturn api.List.Call(a.ctx(), a.services(), api.None{})\n}\n"},
		{"a request, no result", api.Method{Name: "Drop", Doc: "drops.", Transports: api.Window, Request: reflect.TypeFor[api.SessionArgs](), Response: none},
			"// Drop drops.\nfunc (a *App) Drop(args api.SessionArgs) error {\n\t_, err := api.Drop.Call(a.ctx(), a.services(), args)\n\treturn err\n}\n"},
		{"a pointer and a map of another package's type", api.Method{Name: "Get", Doc: "gets.", Transports: api.Both, Request: reflect.TypeFor[*api.PickFolderArgs](), Response: reflect.TypeFor[map[string]time.Duration]()},
			"func (a *App) Get(args *api.PickFolderArgs) (map[string]time.Duration, error) {"},
		{"HTTP only: no window method", api.Method{Name: "Serve", Doc: "serves.", Transports: api.HTTP, Request: none, Response: none}, ""},
		{"by hand: no wrapper", api.Method{Name: "Own", Doc: "is the app's.", Transports: api.Window, ByHand: true, Request: none, Response: none}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := renderGo([]*api.Method{&tc.m})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if strings.Contains(string(out), "func ") {
					t.Fatalf("generated a method:\n%s", out)
				}
				return
			}
			if !strings.Contains(string(out), tc.want) {
				t.Fatalf("output:\n%s\nwant it to contain:\n%s", out, tc.want)
			}
		})
	}
	_, err := renderGo([]*api.Method{{Name: "Anon", Transports: api.Window, Request: reflect.TypeFor[struct{ X int }](), Response: none}})
	if err == nil || !strings.Contains(err.Error(), "give it a name") {
		t.Fatalf("unnamed request: err = %v", err)
	}
}

// The committed outputs are what the definition generates now (make
// check-bindings says the same; this puts it in go test).
func TestCommittedFilesAreCurrent(t *testing.T) {
	files, err := generate(api.Methods())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join("..", "..", f.path))
		if err != nil {
			t.Fatal(err)
		}
		if string(old) != string(f.body) {
			t.Errorf("%s is stale: run 'make bindings'", f.path)
		}
	}
}
