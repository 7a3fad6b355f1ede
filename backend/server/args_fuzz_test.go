package server

import (
	"testing"

	"github.com/warden-dev/warden/backend/runtime"
)

// FuzzArgs feeds arbitrary bodies to the strict argument decoder of every
// argument shape: it must return a value or a bad-request error, never
// panic.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{``, `{}`, `null`, `[]`, `{"workspace":"/tmp","approval":"never","sandbox":{"kind":"read-only"}}`,
		`{"request_id":"x","answer":"always","scope":"workspace","expires_in_sec":60}`, `{"approval":"sometimes"}`,
		`{"sandbox":{"kind":7}}`, `{"a":1}{"b":2}`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		check := func(err error) {
			if err == nil {
				return
			}
			if _, ok := err.(*badRequest); !ok {
				t.Fatalf("error %T is not a bad request: %v", err, err)
			}
		}
		_, err := args[runtime.CreateSessionArgs](body)
		check(err)
		_, err = args[runtime.AnswerArgs](body)
		check(err)
		_, err = args[runtime.RevokeGrantArgs](body)
		check(err)
		_, err = args[struct {
			SessionID string          `json:"session_id"`
			Sandbox   runtime.Sandbox `json:"sandbox"`
		}](body)
		check(err)
	})
}
