//go:build unix

package testserver

import (
	"context"
	"os"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// addFreeze offers "freeze", which stops the whole process (SIGSTOP): a
// server that answers nothing, not even pings.
func addFreeze(s *sdk.Server) {
	s.AddTool(&sdk.Tool{Name: "freeze", Description: "Stops the whole server process.", InputSchema: obj(nil)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
			// The stop reaches some thread of the process, not necessarily
			// this one; wait for it rather than answer first.
			time.Sleep(5 * time.Second)
			return text("thawed"), nil
		})
}
