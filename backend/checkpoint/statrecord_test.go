package checkpoint

import (
	"reflect"
	"testing"
)

func TestStatRecordRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		rec  statRecord
	}{
		{"empty workspace", statRecord{Key: "k", Tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904"}},
		{"one file", statRecord{Key: "abc", Tree: "t1", Entries: []statEntry{{Path: "/w/a.txt", Mode: 0o644, Ino: 12, Size: 3, Mtime: 1733400000123456789, Ctime: 1733400000123456789}}}},
		{"unicode and separators in paths", statRecord{Key: "k", Tree: "t", Entries: []statEntry{
			{Path: "/w/dïr/ファイル", Mode: 0o20000000755}, {Path: "/w/a\x00b\nc", Mode: 0o644}}}},
		{"extreme values", statRecord{Key: "", Tree: "", Entries: []statEntry{
			{Path: "", Mode: 1<<32 - 1, Ino: 1<<64 - 1, Size: 1<<64 - 1, Mtime: -1 << 63, Ctime: 1<<63 - 1}}}},
		{"times before 1970", statRecord{Key: "k", Tree: "t", Entries: []statEntry{{Path: "/w/old", Mtime: -86400e9, Ctime: -1}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := unmarshalStatRecord(tc.rec.marshal())
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.rec.Entries) == 0 {
				tc.rec.Entries = []statEntry{}
			}
			if !reflect.DeepEqual(got, tc.rec) {
				t.Fatalf("round trip:\n got %+v\nwant %+v", got, tc.rec)
			}
		})
	}
}

func TestStatRecordRefusesOtherBytes(t *testing.T) {
	good := statRecord{Key: "key", Tree: "tree", Entries: []statEntry{{Path: "/w/a", Mode: 0o644, Ino: 7, Size: 9, Mtime: 5, Ctime: 6}}}.marshal()
	cases := []struct {
		name string
		b    []byte
	}{
		{"empty file", nil},
		{"a gob record of an earlier Warden", []byte("\x2b\xff\x81\x03\x01\x01\x0astatRecord\x01\xff\x82\x00\x01\x03\x01\x03Key\x01\x0c")},
		{"another magic", append([]byte("wsr2"), good[4:]...)},
		{"trailing bytes", append(append([]byte(nil), good...), 0)},
		{"count larger than the bytes", append([]byte("wsr1\x00\x00"), 0xff, 0xff, 0xff, 0xff, 0x0f)},
		{"string longer than the bytes", []byte("wsr1\x7fkey")},
		{"varint overflow", append([]byte("wsr1"), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)},
		{"mode wider than 32 bits", statRecord{Entries: []statEntry{{}}}.marshal()[:0]},
	}
	// The mode case: hand-built, since marshal cannot write it.
	cases[len(cases)-1].b = append([]byte("wsr1\x00\x00\x01\x00"), 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 0)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if rec, err := unmarshalStatRecord(tc.b); err == nil {
				t.Fatalf("accepted %q as %+v", tc.b, rec)
			}
		})
	}
	// Every truncation of a good record is refused (a torn write).
	for i := range good {
		if _, err := unmarshalStatRecord(good[:i]); err == nil {
			t.Fatalf("accepted the first %d of %d bytes", i, len(good))
		}
	}
}

func FuzzStatRecord(f *testing.F) {
	f.Add(statRecord{Key: "k", Tree: "t", Entries: []statEntry{{Path: "/w/a", Mode: 0o644, Ino: 1, Size: 2, Mtime: 3, Ctime: -4}}}.marshal())
	f.Add([]byte("wsr1"))
	f.Add([]byte("wsr1\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := unmarshalStatRecord(b)
		if err != nil {
			return
		}
		again, err := unmarshalStatRecord(rec.marshal())
		if err != nil || !reflect.DeepEqual(again, rec) {
			t.Fatalf("a decoded record does not survive its own encoding: %+v vs %+v (%v)", rec, again, err)
		}
	})
}
