package telemetry

import (
	"os"
	"strings"
	"testing"
)

func TestReadCopies(t *testing.T) {
	cases := []struct {
		name    string
		file    string
		copies  int
		others  int
		wantErr string
		detail  string // the first copy's layer detail, when set
	}{
		{"the file exporter's lines: two records, a foreign one, the two again", "testdata/collector.jsonl", 4, 1, "", ""},
		{"empty", "", 0, 0, "", ""},
		{"not JSON", "hello\n", 0, 0, "line 1: not OTLP JSON", ""},
		{"a warden record without its chain fields", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"warden.record","value":{"stringValue":"decision"}}]}]}]}]}`, 0, 0, "without warden.session.id", ""},
		{"a bad integer", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"warden.record","value":{"stringValue":"decision"}},{"key":"warden.chain.seq","value":{"intValue":"x"}}]}]}]}]}`, 0, 0, "attribute warden.chain.seq", ""},
		{"an integer as a number", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"warden.record","value":{"stringValue":"decision"}},{"key":"warden.session.id","value":{"stringValue":"s"}},{"key":"warden.chain.hash","value":{"stringValue":"ab"}},{"key":"warden.chain.seq","value":{"intValue":7}}]}]}]}]}`, 1, 0, "", ""},
		{"the layer and its detail", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"warden.record","value":{"stringValue":"decision"}},{"key":"warden.session.id","value":{"stringValue":"s"}},{"key":"warden.chain.hash","value":{"stringValue":"ab"}},{"key":"warden.chain.seq","value":{"intValue":"3"}},{"key":"warden.decision.layer","value":{"stringValue":"rule"}},{"key":"warden.decision.layer_detail","value":{"stringValue":"user rule /home/me/.config/warden/rules.toml:9"}}]}]}]}]}`, 1, 0, "", "user rule /home/me/.config/warden/rules.toml:9"},
		{"the second line is broken", "{}\n{\"resourceLogs\": 5}\n", 0, 0, "line 2", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r *strings.Reader
			if strings.HasPrefix(c.file, "testdata/") {
				b, err := os.ReadFile(c.file)
				if err != nil {
					t.Fatal(err)
				}
				r = strings.NewReader(string(b))
			} else {
				r = strings.NewReader(c.file)
			}
			cs, others, err := ReadCopies(r)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || len(cs) != c.copies || others != c.others {
				t.Fatalf("%d copies, %d others, %v", len(cs), others, err)
			}
			if c.detail != "" && (cs[0].Layer != "rule" || cs[0].LayerDetail != c.detail) {
				t.Fatalf("layer %q detail %q, want rule %q", cs[0].Layer, cs[0].LayerDetail, c.detail)
			}
		})
	}
}

// FuzzReadCopies: any bytes read as a collector's file either fail with an
// error or give copies that carry their chain fields; never a panic.
func FuzzReadCopies(f *testing.F) {
	b, _ := os.ReadFile("testdata/collector.jsonl")
	f.Add(string(b))
	f.Add(`{"resourceLogs":[]}`)
	f.Add("{}\n{}\n")
	f.Add(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"warden.record","value":{"stringValue":"x"}},{"key":"warden.chain.seq","value":{"intValue":"-1"}}]}]}]}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		cs, _, err := ReadCopies(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, c := range cs {
			if c.SessionID == "" || c.Seq < 1 || c.Hash == "" || c.Line < 1 {
				t.Fatalf("copy without its chain fields: %+v", c)
			}
		}
	})
}
