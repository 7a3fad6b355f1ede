package main

import (
	"flag"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

// hostFlag is --allow-host HOST[:PORT], repeatable. Each value is parsed as
// it is given, so a bad one is a usage error that names it.
type hostFlag []policy.HostPattern

func (h *hostFlag) String() string {
	s := make([]string, len(*h))
	for i, p := range *h {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

func (h *hostFlag) Set(v string) error {
	p, err := policy.ParseHostPattern(v)
	if err != nil {
		return err
	}
	*h = append(*h, p)
	return nil
}

const allowHostUsage = "let caged commands reach `HOST[:PORT]` through Warden's proxy without asking (repeatable; *.example.com matches subdomains; loopback and private addresses only when named exactly)"

func registerAllowHost(fs *flag.FlagSet, h *hostFlag) { fs.Var(h, "allow-host", allowHostUsage) }
