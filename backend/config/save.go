package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"

	"github.com/BurntSushi/toml"
)

// UserFile is the part of the user's config.toml that the Settings screen
// edits: [model] and [defaults]. Everything else in the file ([sandbox],
// [mcp.servers.*]) is carried over untouched by SaveUser.
type UserFile struct {
	Model    UserModel
	Defaults UserDefaults
	Network  UserNetwork // [network] (network.go)
}

// UserModel is the [model] table. Empty fields are left out of the file.
type UserModel struct {
	Spec    string
	BaseURL string
	APIKey  string
}

// UserDefaults is the [defaults] table, in its on-disk string form; SaveUser
// checks it with the same rules as Load before anything is written.
type UserDefaults struct {
	Approval        string
	Sandbox         string
	Network         *bool
	WritableRoots   []string
	ApprovalTimeout string
}

// The on-disk shapes SaveUser writes; omitempty keeps unset keys out so the
// defaults of Load still apply to them.
type modelOut struct {
	Spec    string `toml:"spec,omitempty"`
	BaseURL string `toml:"base_url,omitempty"`
	APIKey  string `toml:"api_key,omitempty"`
}

type defaultsOut struct {
	Approval        string   `toml:"approval,omitempty"`
	Sandbox         string   `toml:"sandbox,omitempty"`
	Network         *bool    `toml:"network,omitempty"`
	WritableRoots   []string `toml:"writable_roots,omitempty"`
	ApprovalTimeout string   `toml:"approval_timeout,omitempty"`
}

// ReadUser reads the [model] and [defaults] tables of the user file; a
// missing file reads as empty. A file that does not parse is an error.
func ReadUser(path string) (UserFile, error) {
	_, uf, _, err := readUser(path)
	return uf, err
}

func readUser(path string) (data []byte, uf UserFile, generic map[string]any, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, UserFile{}, map[string]any{}, nil
	}
	if err != nil {
		return nil, uf, nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	f, err := Parse(data, path)
	if err != nil {
		return nil, uf, nil, err
	}
	if _, err := toml.Decode(string(data), &generic); err != nil {
		return nil, uf, nil, fmt.Errorf("config: %s: %w", path, err)
	}
	if m := f.Model; m != nil {
		uf.Model = UserModel{Spec: m.Spec, BaseURL: m.BaseURL, APIKey: m.APIKey}
	}
	if d := f.Defaults; d != nil {
		uf.Defaults = UserDefaults{Network: d.Network, WritableRoots: d.WritableRoots}
		if d.Approval != nil {
			uf.Defaults.Approval = *d.Approval
		}
		if d.Sandbox != nil {
			uf.Defaults.Sandbox = *d.Sandbox
		}
		if d.ApprovalTimeout != nil {
			uf.Defaults.ApprovalTimeout = *d.ApprovalTimeout
		}
	}
	if n := f.Network; n != nil {
		uf.Network = UserNetwork{Presets: n.Presets, Allow: n.Allow, Deny: n.Deny}
		if n.AskTimeout != nil {
			uf.Network.AskTimeout = *n.AskTimeout
		}
	}
	return data, uf, generic, nil
}

// SaveUser rewrites the [model] and [defaults] tables of the user file at
// path through edit, keeping every other table. It refuses to touch a file
// it cannot parse (it would lose what it did not understand), checks the
// result with Load's rules, and replaces the file atomically with mode 0600
// because [model] may hold an API key. Comments outside the two tables
// survive when the file keeps them in the usual place; otherwise the file
// is re-encoded and its comments are lost.
func SaveUser(path string, edit func(*UserFile) error) error {
	// A config kept as a symlink (a dotfiles repository) is written
	// through, not replaced by a plain file.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, uf, generic, err := readUser(path)
	if err != nil {
		return err
	}
	if err := edit(&uf); err != nil {
		return err
	}
	out, err := render(old, generic, uf)
	if err != nil {
		return fmt.Errorf("config: %s: %w", path, err)
	}
	check := Default()
	f, err := Parse(out, path)
	if err == nil {
		err = check.apply(f, path)
	}
	if err != nil {
		return err
	}
	return writeAtomic(path, out)
}

// render produces the new file: the old text with the two tables replaced
// when that provably yields the intended document, else a re-encoding.
func render(old []byte, generic map[string]any, uf UserFile) ([]byte, error) {
	model, err := encodeTable("model", modelOut(uf.Model))
	if err != nil {
		return nil, err
	}
	defs, err := encodeTable("defaults", defaultsOut(uf.Defaults))
	if err != nil {
		return nil, err
	}
	network, err := encodeTable("network", networkOut(uf.Network))
	if err != nil {
		return nil, err
	}
	want := map[string]any{}
	for k, v := range generic {
		want[k] = v
	}
	delete(want, "model")
	delete(want, "defaults")
	delete(want, "network")
	for _, sec := range [][]byte{model, defs, network} {
		var m map[string]any
		if _, err := toml.Decode(string(sec), &m); err != nil {
			return nil, err
		}
		for k, v := range m {
			want[k] = v
		}
	}
	if spliced := splice(old, map[string][]byte{"model": model, "defaults": defs, "network": network}); spliced != nil {
		var got map[string]any
		if _, err := toml.Decode(string(spliced), &got); err == nil && reflect.DeepEqual(got, want) {
			return spliced, nil
		}
	}
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(want); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodeTable renders one table, or nothing when every key is unset.
func encodeTable(name string, v any) ([]byte, error) {
	if reflect.ValueOf(v).IsZero() {
		return nil, nil
	}
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(map[string]any{name: v}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".config-*.toml")
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(0o600); err == nil {
		if _, err = tmp.Write(data); err == nil {
			err = tmp.Sync()
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	// The rename is durable only once the directory entry is.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
