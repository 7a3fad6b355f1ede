// Package auditkey keeps the installation's audit key: 32 random bytes the
// event log's hash chain is keyed with (HMAC-SHA256, see package store).
//
// The key lives in Warden's config folder, next to config.toml
// ($XDG_CONFIG_HOME/warden/audit.key), never in the database: whoever can
// write the database but not read this file cannot rebuild a chain that
// verifies. The config folder is protected from tools and hidden from the
// cage as a whole, which covers this file. It is created at first use,
// mode 0600 in a 0700 folder, and refused when others can read it.
package auditkey

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FileName is the key's name inside the config folder.
const FileName = "audit.key"

// Size is the key length in bytes.
const Size = 32

// PathFor is the key file that belongs with the user config file
// configPath (config.toml): the same folder.
func PathFor(configPath string) string {
	return filepath.Join(filepath.Dir(configPath), FileName)
}

// Load reads the key at path. A missing file is an error wrapping
// fs.ErrNotExist.
func Load(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("audit key %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("audit key %s: not a regular file (%s); remove it and Warden makes a new one", path, fi.Mode().Type())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("audit key %s: mode %04o lets other users read it; run chmod 600 %s", path, perm, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("audit key %s: %w", path, err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) != Size {
		return nil, fmt.Errorf("audit key %s: not %d hex-encoded bytes; the file is damaged (the log it keyed can no longer be verified)", path, Size)
	}
	return key, nil
}

// LoadOrCreate reads the key at path, creating it first when there is none.
// created says whether this call made it. Two processes starting at once
// agree on one key: the new file is linked into place only if none exists.
func LoadOrCreate(path string) (key []byte, created bool, err error) {
	key, err = Load(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, false, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("audit key: config folder %s: %w", dir, err)
	}
	key = make([]byte, Size)
	if _, err := rand.Read(key); err != nil {
		return nil, false, fmt.Errorf("audit key: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".audit.key-*")
	if err != nil {
		return nil, false, fmt.Errorf("audit key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err == nil {
		_, err = tmp.WriteString(hex.EncodeToString(key) + "\n")
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
	} else {
		tmp.Close()
	}
	if err != nil {
		return nil, false, fmt.Errorf("audit key %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			// Someone else made it first: theirs is the key.
			key, err = Load(path)
			return key, false, err
		}
		return nil, false, fmt.Errorf("audit key %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // make the new name durable before anything is keyed with it
		d.Close()
	}
	return key, true, nil
}
