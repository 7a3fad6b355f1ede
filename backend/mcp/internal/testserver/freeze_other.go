//go:build !unix

package testserver

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

func addFreeze(*sdk.Server) {}
