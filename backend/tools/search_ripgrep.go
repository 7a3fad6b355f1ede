package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

const (
	defaultSearchResults = 100
	maxSearchResults     = 5000
	maxMatchChars        = 500
)

// SearchRipgrepParams are the arguments of search.ripgrep.
type SearchRipgrepParams struct {
	Pattern         string `json:"pattern" desc:"Regular expression (Rust regex syntax)."`
	Path            string `json:"path,omitempty" desc:"File or folder to search, relative to the workspace. Default: the workspace."`
	Glob            string `json:"glob,omitempty" desc:"Only search files matching this glob, e.g. *.go or !vendor/**."`
	CaseInsensitive bool   `json:"case_insensitive,omitempty" desc:"Match regardless of case."`
	MaxResults      int    `json:"max_results,omitempty" desc:"Stop after this many matching lines. Default 100."`
}

//go:embed search_ripgrep.md
var searchRipgrepDescription string

// SearchRipgrep is the search.ripgrep tool: the real rg, its JSON parsed.
type SearchRipgrep = Typed[SearchRipgrepParams]

// NewSearchRipgrep returns search.ripgrep running the rg binary at path
// ("" means rg on PATH).
func NewSearchRipgrep(path string) *SearchRipgrep { return newSearchRipgrep(path, nil) }

// newSearchRipgrep is search.ripgrep leaving out matches in what the cage
// hides (Builtins passes the cage's list).
func newSearchRipgrep(path string, secrets []string) *SearchRipgrep {
	if path == "" {
		path = "rg"
	}
	s := ripgrep{rg: path, secrets: secrets}
	return NewTyped(Spec[SearchRipgrepParams]{Name: "search.ripgrep", Description: searchRipgrepDescription, Risk: policy.RiskLow,
		Check: checkSearch, Effects: searchEffects, Invoke: s.invoke})
}

// ripgrep runs the rg binary at its path; matches in secrets (the paths
// the cage hides) are left out.
type ripgrep struct {
	rg      string
	secrets []string
}

func checkSearch(p *SearchRipgrepParams) error {
	if p.Pattern == "" {
		return errors.New("pattern is empty")
	}
	if p.MaxResults < 0 || p.MaxResults > maxSearchResults {
		return fmt.Errorf("max_results must be between 1 and %d", maxSearchResults)
	}
	if p.Path == "" {
		p.Path = "."
	}
	return nil
}

func searchEffects(p SearchRipgrepParams, env Env) ([]policy.Effect, error) {
	path, err := resolveArg(env, p.Path)
	if err != nil {
		return nil, err
	}
	return []policy.Effect{{Kind: policy.EffectRead, Paths: []string{path}}}, nil
}

// Match is one matching line.
type Match struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

type rgText struct {
	Text  *string `json:"text"`
	Bytes string  `json:"bytes"`
}

func (t rgText) String() string {
	if t.Text != nil {
		return *t.Text
	}
	b, _ := base64.StdEncoding.DecodeString(t.Bytes)
	return string(b)
}

type rgMatch struct {
	Data struct {
		Path       rgText `json:"path"`
		Lines      rgText `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

var matchPrefix = []byte(`{"type":"match"`)

func (t ripgrep) invoke(ctx context.Context, p SearchRipgrepParams, env Env) (Result, error) {
	path, err := resolveArg(env, p.Path)
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
	if _, err := os.Stat(path); err != nil {
		return ErrorResult(fmt.Sprintf("%s does not exist", display(env.Workspace, path))), nil
	}
	limit := p.MaxResults
	if limit == 0 {
		limit = defaultSearchResults
	}
	target := path
	if within(env.Workspace, path) {
		target = display(env.Workspace, path) // relative paths in the output
	}
	argv := []string{"--json", "--no-config", "-e", p.Pattern}
	if p.CaseInsensitive {
		argv = append(argv, "--ignore-case")
	}
	if p.Glob != "" {
		argv = append(argv, "--glob", p.Glob)
	}
	argv = append(argv, "--", target)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.rg, argv...)
	cmd.Dir = env.Workspace
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Result{}, fmt.Errorf("search.ripgrep: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return ErrorResult(fmt.Sprintf("cannot run ripgrep (%s): %v", t.rg, err)), nil
	}
	matches, truncated, perr := readMatches(out, limit)
	if truncated {
		cancel() // enough: stop rg instead of reading the rest
	}
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	if perr != nil {
		return Result{}, fmt.Errorf("search.ripgrep: reading rg output: %w", perr)
	}
	var ee *exec.ExitError
	if !truncated && errors.As(werr, &ee) && ee.ExitCode() == 2 && len(matches) == 0 {
		return ErrorResult("ripgrep failed: " + strings.TrimSpace(stderr.String())), nil
	}
	matches, left := withoutSecrets(matches, env.Workspace, secretsBelow(path, t.secrets))
	res := searchResult(matches, truncated, limit)
	if left > 0 {
		res.Content[0].Text += fmt.Sprintf("\n[%d matches in files the sandbox hides (secrets, Warden's own data, deny_read) left out]", left)
	}
	return res, nil
}

// withoutSecrets drops the matches in hidden files: a search over a folder
// holding one does not read it out (a read of the file itself asks).
func withoutSecrets(ms []Match, ws string, secrets []string) ([]Match, int) {
	if len(secrets) == 0 {
		return ms, 0
	}
	out := ms[:0]
	left := 0
	for _, m := range ms {
		p := m.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(ws, p)
		}
		if underSecret(filepath.Clean(p), ws, secrets) {
			left++
			continue
		}
		out = append(out, m)
	}
	return out, left
}

// secretsBelow are the hidden entries a walk from root must leave out:
// not those holding root itself, whose read a human approved (the engine
// asked: SecretRead).
func secretsBelow(root string, secrets []string) []string {
	var out []string
	for _, h := range secrets {
		if !within(h, root) {
			out = append(out, h)
		}
	}
	return out
}

// underSecret is the engine's rule (policy.Engine.Secret) for a path the
// folder tools meet on their way: a hidden entry holds it, and the
// workspace is not itself inside that entry.
func underSecret(p, ws string, secrets []string) bool {
	for _, h := range secrets {
		if within(h, p) && !within(h, ws) {
			return true
		}
	}
	return false
}

// readMatches parses rg --json lines until limit matches; truncated says
// more were coming.
func readMatches(r io.Reader, limit int) ([]Match, bool, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	var out []Match
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A huge line: gather it whole.
			rest, err2 := br.ReadBytes('\n')
			line, err = append(append([]byte(nil), line...), rest...), err2
		}
		if bytes.HasPrefix(line, matchPrefix) {
			if len(out) >= limit {
				return out, true, nil
			}
			path, text, num, ok := fastMatch(line)
			if !ok {
				var m rgMatch
				if jerr := json.Unmarshal(trimSubmatches(line), &m); jerr != nil {
					return out, false, jerr
				}
				path, text, num = m.Data.Path.String(), m.Data.Lines.String(), m.Data.LineNumber
			}
			text = strings.TrimRight(text, "\r\n")
			if len(text) > maxMatchChars {
				text = text[:maxMatchChars] + " … [truncated]"
			}
			out = append(out, Match{Path: strings.TrimPrefix(path, "./"), Line: num, Text: text})
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, false, nil
			}
			return out, false, err
		}
	}
}

var (
	pathKey   = []byte(`"data":{"path":{"text":`)
	linesKey  = []byte(`},"lines":{"text":`)
	numberKey = []byte(`},"line_number":`)
)

// fastMatch reads a match line the way rg 13 writes it, without reflection;
// anything else (non-UTF-8 "bytes" fields, a changed layout) says !ok and
// takes the encoding/json path.
func fastMatch(line []byte) (path, text string, num int, ok bool) {
	rest, ok := cutAfter(line, pathKey)
	if !ok {
		return
	}
	if path, rest, ok = jsonString(rest); !ok {
		return
	}
	if rest, ok = bytes.CutPrefix(rest, linesKey); !ok {
		return
	}
	if text, rest, ok = jsonString(rest); !ok {
		return
	}
	if rest, ok = bytes.CutPrefix(rest, numberKey); !ok {
		return
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		num = num*10 + int(rest[i]-'0')
		i++
	}
	return path, text, num, i > 0 && i < 10
}

func cutAfter(b, sep []byte) ([]byte, bool) {
	i := bytes.Index(b, sep)
	if i < 0 {
		return nil, false
	}
	return b[i+len(sep):], true
}

// jsonString reads the JSON string b starts with. The common escapes are
// undone here; \u escapes go through encoding/json.
func jsonString(b []byte) (string, []byte, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	var sb []byte // nil while no escape was seen
	start := 1
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '"':
			if sb == nil {
				return string(b[1:i]), b[i+1:], true
			}
			return string(append(sb, b[start:i]...)), b[i+1:], true
		case '\\':
			if i+1 >= len(b) {
				return "", nil, false
			}
			var c byte
			switch b[i+1] {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'r':
				c = '\r'
			case '"', '\\', '/':
				c = b[i+1]
			default:
				return slowJSONString(b)
			}
			sb = append(append(sb, b[start:i]...), c)
			i++
			start = i + 1
		}
	}
	return "", nil, false
}

// slowJSONString finds the end of the string token and lets encoding/json
// decode it.
func slowJSONString(b []byte) (string, []byte, bool) {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			var s string
			if json.Unmarshal(b[:i+1], &s) != nil {
				return "", nil, false
			}
			return s, b[i+1:], true
		}
	}
	return "", nil, false
}

var submatchesKey = []byte(`,"submatches":`)

// trimSubmatches drops the submatches array, which the tool does not use and
// which is most of a match line's decoding cost. The key cannot occur
// earlier: quotes inside JSON strings are escaped.
func trimSubmatches(line []byte) []byte {
	i := bytes.Index(line, submatchesKey)
	if i < 0 {
		return line
	}
	return append(line[:i:i], "}}"...)
}

func searchResult(ms []Match, truncated bool, limit int) Result {
	var b strings.Builder
	if len(ms) == 0 {
		b.WriteString("no matches")
	}
	for _, m := range ms {
		fmt.Fprintf(&b, "%s:%d: %s\n", m.Path, m.Line, m.Text)
	}
	if truncated {
		fmt.Fprintf(&b, "[stopped at %d matches; narrow the pattern, path or glob, or raise max_results]", limit)
	}
	res := TextResult(strings.TrimRight(b.String(), "\n"))
	res.Structured, _ = json.Marshal(map[string]any{"matches": ms, "truncated": truncated})
	return res
}
