package orgpolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Dir is the organisation tier's folder. It is fixed: no flag, environment
// variable or config key moves it or switches it off.
const Dir = "/etc/warden"

// The organisation tier's files.
const (
	PolicyFile  = "policy.toml"
	SigFile     = "policy.toml.sig"
	SignersFile = "allowed_signers"
)

// Loader reads the organisation tier from its folder.
type Loader struct {
	dir string
}

// System is the loader of the fixed folder /etc/warden. Tests reach
// another folder only through the test-only constructor of this package,
// or by mounting one over /etc/warden in a private mount namespace.
func System() Loader { return Loader{dir: Dir} }

// Policy is the organisation tier as loaded: nil when none applies.
type Policy struct {
	*Bundle
	// Signed says allowed_signers exists and the bundle verified against
	// it; Signer is the key that signed it.
	Signed      bool
	Signer      *Signer
	SignersFile string
	SigFile     string
}

// Error is why the organisation policy cannot apply. When it is returned,
// nothing may run: no session starts and no tool runs, in every front end.
type Error struct {
	File    string
	Problem string
	Err     error
}

func (e *Error) Error() string {
	msg := "organisation policy: " + e.File + ": " + e.Problem
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg + " — no session can start until an administrator fixes it"
}

func (e *Error) Unwrap() error { return e.Err }

// Load reads and checks the organisation tier at now.
//
//   - allowed_signers present: org mode is on. policy.toml and its
//     signature must exist, verify against a listed key in the
//     warden-policy namespace, parse and not be expired; anything else is
//     an Error.
//   - allowed_signers absent: a policy.toml owned by root and writable by
//     no one else applies unsigned; one owned by another user or writable
//     by group or others is an Error. No policy.toml: no organisation
//     policy (nil, nil).
//
// The folder and allowed_signers must themselves be root's and writable by
// no one else, or an Error says so.
func (l Loader) Load(now time.Time) (*Policy, error) {
	dir := l.dir
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{File: dir, Problem: "cannot be read", Err: err}
	}
	if !fi.IsDir() {
		return nil, &Error{File: dir, Problem: "is not a folder"}
	}
	signers := filepath.Join(dir, SignersFile)
	policyPath := filepath.Join(dir, PolicyFile)
	sigPath := filepath.Join(dir, SigFile)
	_, serr := os.Stat(signers)
	_, perr := os.Stat(policyPath)
	if errors.Is(serr, fs.ErrNotExist) && errors.Is(perr, fs.ErrNotExist) {
		return nil, nil
	}
	if err := rootOnly(dir, fi); err != nil {
		return nil, err
	}
	if errors.Is(serr, fs.ErrNotExist) {
		return l.unsigned(policyPath, now)
	}
	return l.signed(signers, policyPath, sigPath, now)
}

func (l Loader) unsigned(policyPath string, now time.Time) (*Policy, error) {
	data, err := readRootOnly(policyPath)
	if err != nil {
		return nil, err
	}
	b, err := l.bundle(policyPath, data, now)
	if err != nil {
		return nil, err
	}
	return &Policy{Bundle: b}, nil
}

func (l Loader) signed(signersPath, policyPath, sigPath string, now time.Time) (*Policy, error) {
	sdata, err := readRootOnly(signersPath)
	if err != nil {
		return nil, err
	}
	signers, err := ParseAllowedSigners(sdata)
	if err != nil {
		return nil, &Error{File: signersPath, Problem: "does not parse", Err: err}
	}
	data, err := os.ReadFile(policyPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{File: policyPath, Problem: "is missing, and " + signersPath + " says a signed policy is required"}
	}
	if err != nil {
		return nil, &Error{File: policyPath, Problem: "cannot be read", Err: err}
	}
	sig, err := os.ReadFile(sigPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{File: sigPath, Problem: "is missing: sign the policy with ssh-keygen -Y sign -f KEY -n " + Namespace + " " + policyPath}
	}
	if err != nil {
		return nil, &Error{File: sigPath, Problem: "cannot be read", Err: err}
	}
	signer, err := Verify(data, sig, signers, now)
	if err != nil {
		return nil, &Error{File: policyPath, Problem: "is not signed by a key in " + signersPath, Err: err}
	}
	b, err := l.bundle(policyPath, data, now)
	if err != nil {
		return nil, err
	}
	b.Org.Signed = true
	return &Policy{Bundle: b, Signed: true, Signer: &signer, SignersFile: signersPath, SigFile: sigPath}, nil
}

func (l Loader) bundle(path string, data []byte, now time.Time) (*Bundle, error) {
	b, err := ParseBundle(data, path)
	if err != nil {
		return nil, &Error{File: path, Problem: "does not parse", Err: err}
	}
	if !b.Expires.IsZero() && !now.Before(b.Expires) {
		return nil, &Error{File: path, Problem: "expired on " + b.Expires.UTC().Format(time.RFC3339) + " (its expires key)"}
	}
	return b, nil
}

// readRootOnly reads a file that must be root's and writable by no one
// else.
func readRootOnly(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &Error{File: path, Problem: "cannot be read", Err: err}
	}
	if err := rootOnly(path, fi); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Problem: "cannot be read", Err: err}
	}
	return data, nil
}

// rootOnly refuses a file or folder another user owns or may write.
func rootOnly(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return &Error{File: path, Problem: "its owner cannot be read"}
	}
	if st.Uid != 0 {
		return &Error{File: path, Problem: fmt.Sprintf("is owned by uid %d, not root: refused (chown root:root %s)", st.Uid, path)}
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return &Error{File: path, Problem: fmt.Sprintf("is writable by group or others (mode %04o): refused (chmod go-w %s)", fi.Mode().Perm(), path)}
	}
	return nil
}
