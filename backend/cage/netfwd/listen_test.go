package netfwd

import (
	"slices"
	"testing"
)

func TestListeningPorts(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want []int
	}{
		{"v4 loopback and any", `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1435 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0
   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 100 0 0 10 0
`, []int{5173, 8080}},
		{"established and time-wait are not listeners", `  sl  local_address rem_address   st
   0: 0100007F:0C38 0100007F:A1B2 01 00000000:00000000
   1: 0100007F:0C39 0100007F:A1B3 06 00000000:00000000
`, nil},
		{"v6 any and loopback, one port twice", `  sl  local_address                         remote_address                        st
   0: 00000000000000000000000000000000:1435 00000000000000000000000000000000:0000 0A
   1: 00000000000000000000000001000000:1435 00000000000000000000000000000000:0000 0A
   2: 00000000000000000000000001000000:0BB8 00000000000000000000000000000000:0000 0A
`, []int{5173, 3000}},
		{"the header alone", "  sl  local_address rem_address   st\n", nil},
		{"garbage is skipped", "header\n   0: nocolon 0 0A\n   1: 0100007F:ZZZZ 0 0A\n   2: 0100007F:0000 0 0A\n   3: 0100007F:10000 0 0A\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ListeningPorts([]byte(tc.data)); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzListeningPorts(f *testing.F) {
	f.Add([]byte("  sl  local_address rem_address   st\n   0: 0100007F:1435 00000000:0000 0A 0\n"))
	f.Add([]byte("h\n0: :FFFF x 0A\n1: a:b:0001 x 0A\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		seen := map[int]bool{}
		for _, p := range ListeningPorts(data) {
			if p < 1 || p > 65535 || seen[p] {
				t.Fatalf("port %d (seen %v)", p, seen[p])
			}
			seen[p] = true
		}
	})
}
