package mcpconfig

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// hashKeyBytes is the size of the launch-hash key.
const hashKeyBytes = 32

// HashKeyPath is where the launch-hash key lives: beside the user config
// (a folder no tool may write), never in the database, so the trust records
// there cannot be checked against guessed env values without it.
func HashKeyPath(userConfigPath string) string {
	return filepath.Join(filepath.Dir(userConfigPath), "mcp-trust.key")
}

// LoadHashKey reads the key at path, creating it (0600, random) when it does
// not exist yet. Two processes creating it at once agree: the loser of the
// O_EXCL race reads the winner's key.
func LoadHashKey(path string) ([]byte, error) {
	for attempt := 0; attempt < 2; attempt++ {
		data, err := os.ReadFile(path)
		if err == nil {
			key, err := hex.DecodeString(strings.TrimSpace(string(data)))
			if err != nil || len(key) != hashKeyBytes {
				return nil, fmt.Errorf("MCP trust key %s is damaged (want %d hex-encoded bytes); delete it to start over (every MCP trust is then asked again)", path, hashKeyBytes)
			}
			return key, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading the MCP trust key: %w", err)
		}
		key := make([]byte, hashKeyBytes)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("making the MCP trust key: %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("making the MCP trust key: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("making the MCP trust key: %w", err)
		}
		_, werr := f.WriteString(hex.EncodeToString(key) + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			_ = os.Remove(path)
			return nil, fmt.Errorf("writing the MCP trust key: %w", werr)
		}
		return key, nil
	}
	return nil, fmt.Errorf("MCP trust key %s: created and removed while reading it", path)
}

// ProcessKey is the key of a manager given none: trust then lasts only
// as long as the process, which is what a caller without a key file gets.
var ProcessKey = sync.OnceValue(func() []byte {
	key := make([]byte, hashKeyBytes)
	_, _ = rand.Read(key)
	return key
})
