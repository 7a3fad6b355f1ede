//go:build linux

package checkpoint

import (
	"bytes"
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// parseEvents reads whatever the kernel (or anything) hands it without
// reading past the buffer, and every name it reports is in the buffer.
func FuzzParseEvents(f *testing.F) {
	rec := func(wd int32, mask uint32, name string) []byte {
		b := make([]byte, unix.SizeofInotifyEvent)
		binary.NativeEndian.PutUint32(b[0:], uint32(wd))
		binary.NativeEndian.PutUint32(b[4:], mask)
		padded := append([]byte(name), make([]byte, 16-len(name)%16)...)
		binary.NativeEndian.PutUint32(b[12:], uint32(len(padded)))
		return append(b, padded...)
	}
	f.Add(append(rec(1, unix.IN_CREATE, "a.go"), rec(2, unix.IN_DELETE_SELF, "")...))
	f.Add(rec(-1, unix.IN_Q_OVERFLOW, ""))
	f.Add([]byte{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, in []byte) {
		parseEvents(in, func(_ int32, _ uint32, name []byte) {
			if bytes.IndexByte(name, 0) >= 0 || !bytes.Contains(in, name) {
				t.Fatalf("name %q not from the input", name)
			}
		})
	})
}

func TestParseEvents(t *testing.T) {
	b := make([]byte, unix.SizeofInotifyEvent+16)
	binary.NativeEndian.PutUint32(b[0:], 7)
	binary.NativeEndian.PutUint32(b[4:], unix.IN_MODIFY)
	binary.NativeEndian.PutUint32(b[12:], 16)
	copy(b[unix.SizeofInotifyEvent:], "name.txt")
	var got []string
	parseEvents(b, func(wd int32, mask uint32, name []byte) { got = append(got, string(name)) })
	if len(got) != 1 || got[0] != "name.txt" {
		t.Fatalf("%q", got)
	}
	parseEvents(b[:len(b)-1], func(int32, uint32, []byte) { t.Fatal("a cut record was read") })
}
