package calc

import "testing"

func TestSum(t *testing.T) {
	for _, tc := range []struct{ a, b, want int }{{1, 2, 3}, {-1, 1, 0}, {0, 0, 0}} {
		if got := Sum(tc.a, tc.b); got != tc.want {
			t.Errorf("Sum(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
