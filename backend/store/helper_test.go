package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// The test binary doubles as the helper process of the crash, two-process
// and read-only tests: re-executed with WARDEN_STORE_HELPER set, it runs
// one of these roles instead of the tests.
const (
	helperEnv   = "WARDEN_STORE_HELPER"
	helperDBEnv = "WARDEN_STORE_DB"
)

func TestMain(m *testing.M) {
	switch role := os.Getenv(helperEnv); role {
	case "":
		os.Exit(m.Run())
	case "crash-writer":
		os.Exit(crashWriter(os.Getenv(helperDBEnv)))
	case "shared-writer":
		os.Exit(sharedWriter(os.Getenv(helperDBEnv), os.Args[len(os.Args)-1]))
	case "open":
		_, err := Open(context.Background(), os.Getenv(helperDBEnv), testKey)
		fmt.Print(err)
		os.Exit(0)
	default:
		fmt.Fprintln(os.Stderr, "unknown helper role", role)
		os.Exit(2)
	}
}

// crashWriter appends forever to its own new session and to the sessions
// earlier runs left, printing "ack <session> <version>" after each Append
// returns, until it is killed.
func crashWriter(path string) int {
	ctx := context.Background()
	s, err := Open(ctx, path, testKey)
	if err != nil {
		fmt.Println("err", err)
		return 1
	}
	mine, err := s.CreateSession(ctx, NewSession{Workspace: "/crash"})
	if err != nil {
		fmt.Println("err", err)
		return 1
	}
	ids := []string{mine.ID}
	if all, err := s.Sessions(ctx, ""); err == nil {
		for i, x := range all {
			if i < 3 && x.ID != mine.ID {
				ids = append(ids, x.ID)
			}
		}
	}
	for n := 0; ; n++ {
		sid := ids[rand.IntN(len(ids))]
		batch := make([]Event, 1+rand.IntN(40))
		for i := range batch {
			id := strconv.Itoa(n) + "-" + strconv.Itoa(i)
			if i%3 == 0 {
				batch[i] = PermissionRequested{RequestID: id, CallID: id, Tool: "shell.exec", Reasons: nil, Signature: "shell:ls"}
			} else {
				batch[i] = ToolOutput{CallID: id, Stream: "stdout", Chunk: fmt.Sprintf("line %d of batch %d\n", i, n)}
			}
		}
		v, err := s.Append(ctx, sid, AnyVersion, batch...)
		if err != nil {
			fmt.Println("err", err)
			return 1
		}
		// One write(2) per line: once it returns the parent can read it.
		os.Stdout.WriteString("ack " + sid + " " + strconv.FormatInt(v, 10) + "\n")
	}
}

// sharedWriter appends one message at a time to the given sessions with
// optimistic versions, retrying conflicts, as a second process would.
func sharedWriter(path, sessions string) int {
	ctx := context.Background()
	s, err := Open(ctx, path, testKey)
	if err != nil {
		fmt.Println("err", err)
		return 1
	}
	defer s.Close()
	ids := splitComma(sessions)
	for i := range sharedWrites {
		sid := ids[i%len(ids)]
		for {
			cur, err := s.Session(ctx, sid)
			if err != nil {
				fmt.Println("err", err)
				return 1
			}
			_, err = s.Append(ctx, sid, cur.Version, MessageAppended{Role: "user", Text: fmt.Sprintf("pid %d #%d", os.Getpid(), i)})
			var ce *ConflictError
			if errors.As(err, &ce) {
				continue
			}
			if err != nil {
				fmt.Println("err", err)
				return 1
			}
			break
		}
	}
	fmt.Println("done")
	return 0
}

const sharedWrites = 60

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// testKey is the audit key of the package's tests; a constant, so the
// helper processes chain with the same key as the test that starts them.
var testKey = Key([]byte("warden store tests: audit key 32"))
