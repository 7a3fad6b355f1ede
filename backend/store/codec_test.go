package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

func readEventLines(t testing.TB) [][]byte {
	t.Helper()
	f, err := os.Open("testdata/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, append([]byte(nil), line...))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every registered kind has a sample line, and every sample survives
// decode -> encode unchanged apart from canonical form.
func TestCodecRoundTripEveryKind(t *testing.T) {
	seen := map[Kind]bool{}
	for _, line := range readEventLines(t) {
		ev, err := Decode(line)
		if err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		k := KindOf(ev)
		seen[k] = true
		t.Run(string(k), func(t *testing.T) {
			got, err := Encode(ev)
			if err != nil {
				t.Fatal(err)
			}
			want, err := canonicalize(line)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("re-encoded\n got %s\nwant %s", got, want)
			}
			again, err := Decode(got)
			if err != nil {
				t.Fatal(err)
			}
			if KindOf(again) != k {
				t.Errorf("kind changed to %s", KindOf(again))
			}
			// Raw JSON fields (args) keep their bytes, so compare encodings.
			if enc2, err := Encode(again); err != nil || !bytes.Equal(enc2, got) {
				t.Errorf("second encode differs: %s (%v)", enc2, err)
			}
		})
	}
	for _, k := range Kinds() {
		if !seen[k] {
			t.Errorf("kind %s has no sample in testdata/events.jsonl", k)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"not json", `{`, "decode event"},
		{"unknown kind", `{"kind":"nope","data":{}}`, `unknown event kind "nope"`},
		{"missing kind", `{"data":{}}`, `missing "kind"`},
		{"missing data", `{"kind":"plan_presented"}`, `missing "data"`},
		{"unknown envelope field", `{"kind":"plan_presented","data":{},"x":1}`, "unknown field"},
		{"trailing data", `{"kind":"plan_presented","data":{}} {}`, "trailing data"},
		{"wrong field type", `{"kind":"plan_presented","data":{"plan":3}}`, "decode plan_presented event"},
		{"data not object", `{"kind":"plan_presented","data":[1]}`, "decode plan_presented event"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode(%s) = %v, want error containing %q", tc.in, err, tc.want)
			}
		})
	}
}

func TestEncodeValidates(t *testing.T) {
	cases := []struct {
		name string
		ev   Event
		want string
	}{
		{"nil", nil, "unregistered event type"},
		{"bad role", MessageAppended{Role: "robot"}, `role "robot"`},
		{"request without id", PermissionRequested{CallID: "c", Tool: "t"}, "request_id is empty"},
		{"grant without source", PermissionGranted{RequestID: "r", CallID: "c", Tool: "t"}, "source is empty"},
		{"denied by nobody", PermissionDenied{RequestID: "r", CallID: "c", Tool: "t", Reason: "user-denied"}, `by ""`},
		{"denied without reason", PermissionDenied{RequestID: "r", CallID: "c", Tool: "t", By: DeniedByUser}, "reason is empty"},
		{"denied without call", PermissionDenied{RequestID: "r", Tool: "t", By: DeniedByUser, Reason: "user-denied"}, "call_id is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Encode(tc.ev)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Encode = %v, want error containing %q", err, tc.want)
			}
		})
	}
}

func TestCanonicalJSON(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"sorts keys", `{"b":1,"a":{"d":2,"c":3}}`, `{"a":{"c":3,"d":2},"b":1}`},
		{"drops whitespace", "{ \"a\" : [ 1 , 2 ] }", `{"a":[1,2]}`},
		{"keeps html", `{"a":"<b>&"}`, `{"a":"<b>&"}`},
		{"keeps number text", `{"a":1.50,"b":1e3}`, `{"a":1.50,"b":1e3}`},
		{"unicode", `{"a":"\u00e9"}`, `{"a":"é"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := canonicalize([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	if _, err := canonicalize([]byte(`{} x`)); err == nil {
		t.Error("trailing data accepted")
	}
}

// FuzzDecode: arbitrary bytes never panic, and whatever decodes re-encodes
// to a fixed point.
func FuzzDecode(f *testing.F) {
	for _, line := range readEventLines(f) {
		f.Add(line)
	}
	f.Add([]byte(`{"kind":"tool_output","data":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := Decode(b)
		if err != nil {
			return
		}
		enc, err := Encode(ev)
		if err != nil {
			return // decodable but invalid (e.g. empty request_id): Append refuses it too
		}
		ev2, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", enc, err)
		}
		enc2, err := Encode(ev2)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("not a fixed point:\n%s\n%s (%v)", enc, enc2, err)
		}
	})
}

// FuzzCanonicalize: canonical form is idempotent and equal to the input as
// JSON values.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":2}`, `[1,"x",null,true]`, `"\u2028"`, `{"a":{"b":[{}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := canonicalize(b)
		if err != nil {
			return
		}
		c2, err := canonicalize(c)
		if err != nil || !bytes.Equal(c, c2) {
			t.Fatalf("not idempotent: %s -> %s (%v)", c, c2, err)
		}
		var x, y any
		if json.Unmarshal(b, &x) != nil || json.Unmarshal(c, &y) != nil {
			t.Fatalf("canonical form does not parse: %s", c)
		}
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("value changed: %s -> %s", b, c)
		}
	})
}
