package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/tools"
)

// SearchResult compares search.ripgrep with rg --json on the same tree.
type SearchResult struct {
	Files   int    `json:"files"`
	Matches int    `json:"matches"`
	Tool    Stat   `json:"search_ripgrep_ms"`
	Rg      Stat   `json:"rg_json_ms"`
	Ratio   Stat   `json:"ratio"`
	Error   string `json:"error,omitempty"`
}

const searchFiles = 10000

// searchTree makes (once, then reuses) a 10,000-file tree in which one
// file in four holds a match.
func searchTree(work string) (string, error) {
	root := filepath.Join(work, "search-tree")
	stamp := filepath.Join(work, "search-tree.done")
	if _, err := os.Stat(stamp); err == nil {
		return root, nil
	}
	os.RemoveAll(root)
	body := strings.Repeat("nothing to see here, just a line of text\n", 20)
	for i := 0; i < searchFiles; i++ {
		content := body
		if i%4 == 0 {
			content += fmt.Sprintf("func target%d() {}\n", i)
		}
		p := filepath.Join(root, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.go", i))
		if i < 100 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return "", err
			}
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return "", err
		}
	}
	return root, os.WriteFile(stamp, nil, 0o644)
}

// benchSearch alternates the tool and rg --json, both reading all 2,500
// matches, and takes the ratio per pair.
func benchSearch(ctx context.Context, work string, rounds int) SearchResult {
	r := SearchResult{Files: searchFiles, Matches: searchFiles / 4}
	root, err := searchTree(work)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	tool := tools.NewSearchRipgrep("")
	env := tools.Env{Workspace: root}
	args := json.RawMessage(`{"pattern":"func target","max_results":5000}`)
	var tm, rm, ratio []float64
	for i := 0; i < rounds+1; i++ {
		t0 := time.Now()
		res, err := tool.Invoke(ctx, args, env)
		if err != nil || res.IsError {
			r.Error = fmt.Sprintf("search.ripgrep: %v %s", err, text(res))
			return r
		}
		t1 := time.Now()
		cmd := exec.CommandContext(ctx, "rg", "--json", "--no-config", "-e", "func target", "--", ".")
		cmd.Dir = root
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			r.Error = err.Error()
			return r
		}
		_, _ = io.Copy(io.Discard, out)
		if err := cmd.Wait(); err != nil {
			r.Error = "rg --json: " + err.Error()
			return r
		}
		t2 := time.Now()
		if i == 0 {
			continue // warm the page cache for both
		}
		tm = append(tm, ms(t1.Sub(t0)))
		rm = append(rm, ms(t2.Sub(t1)))
		ratio = append(ratio, float64(t1.Sub(t0))/float64(t2.Sub(t1)))
	}
	r.Tool, r.Rg, r.Ratio = statOf(tm), statOf(rm), statOf(ratio)
	return r
}
