package auditexport

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/store"
)

func ev(seq int64, kind store.Kind, payload string) store.StoredEvent {
	return store.StoredEvent{Seq: seq, SessionID: "s1", Version: seq, Kind: kind,
		Time: time.Date(2026, 12, 1, 8, 0, 0, int(seq)*int(time.Millisecond), time.UTC), Payload: json.RawMessage(payload), Hash: []byte{0xab, byte(seq)}}
}

func TestCSVRows(t *testing.T) {
	cases := []struct {
		name string
		ev   store.StoredEvent
		want map[string]string // column → value
	}{
		{"an ask names the tool, signature and decision", ev(1, store.KindPermissionRequested, `{"tool":"shell.exec","signature":"shell=rm -rf build"}`),
			map[string]string{"seq": "1", "kind": "permission_requested", "tool": "shell.exec", "signature": "shell=rm -rf build", "decision": "ask", "hash": "ab01"}},
		{"an allow carries its source", ev(2, store.KindPermissionGranted, `{"tool":"fs.read","source":"grant:session"}`),
			map[string]string{"decision": "allow", "source_or_reason": "grant:session"}},
		{"a deny carries its reason and detail", ev(3, store.KindPermissionDenied, `{"tool":"fs.write","reason":"sandbox-rejected","detail":"outside, \"quoted\"\nnext line"}`),
			map[string]string{"decision": "deny", "source_or_reason": "sandbox-rejected", "detail": "outside, \"quoted\"\nnext line"}},
		{"another event leaves the permission columns empty", ev(4, store.KindMessageAppended, `{"role":"user","text":"hi"}`),
			map[string]string{"tool": "", "decision": "", "data": `{"role":"user","text":"hi"}`}},
		{"a payload that is not an object is kept raw", ev(5, store.KindMessageAppended, `[1,2]`),
			map[string]string{"tool": "", "data": `[1,2]`, "time": "2026-12-01T08:00:00.005Z"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			enc, err := NewEncoder(&b, CSV)
			if err != nil {
				t.Fatal(err)
			}
			if err := enc.Write(tc.ev); err != nil {
				t.Fatal(err)
			}
			if err := enc.Close(); err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(&b).ReadAll()
			if err != nil || len(recs) != 2 {
				t.Fatalf("%d records, %v", len(recs), err)
			}
			if strings.Join(recs[0], ",") != strings.Join(CSVHeader, ",") {
				t.Fatalf("header %q", recs[0])
			}
			for col, want := range tc.want {
				i := indexOf(CSVHeader, col)
				if i < 0 {
					t.Fatalf("no column %q", col)
				}
				if recs[1][i] != want {
					t.Errorf("%s = %q, want %q", col, recs[1][i], want)
				}
			}
		})
	}
}

func TestJSONLIsTheStoredEvent(t *testing.T) {
	evs := []store.StoredEvent{ev(1, store.KindPermissionRequested, `{"tool":"a"}`), ev(2, store.KindPermissionDenied, `{"tool":"b","reason":"x"}`)}
	var b bytes.Buffer
	enc, err := NewEncoder(&b, JSONL)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if err := enc.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(evs) {
		t.Fatalf("%d lines", len(lines))
	}
	for i, line := range lines {
		want, _ := json.Marshal(evs[i])
		if line != string(want) {
			t.Errorf("line %d = %s, want the stored event's own JSON %s", i, line, want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{{"jsonl", true}, {"csv", true}, {"JSONL", false}, {"json", false}, {"", false}, {"csv ", false}} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseFormat(tc.in)
			if (err == nil) != tc.ok {
				t.Errorf("ParseFormat(%q) err = %v, want ok=%v", tc.in, err, tc.ok)
			}
			if _, err := NewEncoder(&bytes.Buffer{}, Format(tc.in)); (err == nil) != tc.ok {
				t.Errorf("NewEncoder(%q) err = %v, want ok=%v", tc.in, err, tc.ok)
			}
		})
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
