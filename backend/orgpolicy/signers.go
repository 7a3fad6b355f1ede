package orgpolicy

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// Namespace is the SSHSIG namespace a policy is signed in:
// ssh-keygen -Y sign -f KEY -n warden-policy policy.toml.
const Namespace = "warden-policy"

// Signer is one line of allowed_signers (ssh-keygen(1), ALLOWED SIGNERS):
//
//	principals [options] keytype base64-key [comment]
//
// with the options namespaces="a,b", valid-after="YYYYMMDD[HHMM[SS]][Z]"
// and valid-before=... A line marked cert-authority is refused: Warden
// verifies plain keys, and a certificate authority line is a promise it
// would not keep.
type Signer struct {
	Line        int
	Principals  string
	Key         ssh.PublicKey
	Namespaces  []string // empty: any
	ValidAfter  time.Time
	ValidBefore time.Time
}

// Fingerprint is the key's SHA256 fingerprint, as ssh-keygen -l prints it.
func (s Signer) Fingerprint() string { return ssh.FingerprintSHA256(s.Key) }

// ParseAllowedSigners parses an allowed_signers file. Any line that does
// not parse is an error naming the line: a signer list must never be
// half-read.
func ParseAllowedSigners(data []byte) ([]Signer, error) {
	var out []Signer
	for n, raw := range bytes.Split(data, []byte("\n")) {
		line := strings.TrimSpace(strings.TrimSuffix(string(raw), "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseSignerLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		s.Line = n + 1
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, errors.New("no signer is listed")
	}
	return out, nil
}

func parseSignerLine(line string) (Signer, error) {
	var s Signer
	principals, rest, err := firstField(line)
	if err != nil {
		return s, err
	}
	if principals == "" {
		return s, errors.New("no principals")
	}
	s.Principals = principals
	// The rest is authorized_keys syntax: options, key type, key, comment.
	key, _, opts, trailing, err := ssh.ParseAuthorizedKey([]byte(rest))
	if err != nil {
		return s, fmt.Errorf("the key does not parse: %w", err)
	}
	if len(bytes.TrimSpace(trailing)) > 0 {
		return s, errors.New("more than one key on the line")
	}
	if _, ok := key.(*ssh.Certificate); ok {
		return s, errors.New("a certificate is listed; list the signing key itself")
	}
	s.Key = key
	for _, o := range opts {
		name, val, hasVal := strings.Cut(o, "=")
		name = strings.ToLower(name)
		if hasVal {
			if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
				return s, fmt.Errorf("option %s: the value must be quoted", name)
			}
			val = val[1 : len(val)-1]
		}
		switch {
		case name == "cert-authority" && !hasVal:
			return s, errors.New("cert-authority lines are not supported: list the signing keys themselves")
		case name == "namespaces" && hasVal:
			for _, ns := range strings.Split(val, ",") {
				if ns = strings.TrimSpace(ns); ns != "" {
					s.Namespaces = append(s.Namespaces, ns)
				}
			}
			if len(s.Namespaces) == 0 {
				return s, errors.New(`namespaces="" lists no namespace`)
			}
		case name == "valid-after" && hasVal:
			if s.ValidAfter, err = parseSignerTime(val); err != nil {
				return s, fmt.Errorf("valid-after: %w", err)
			}
		case name == "valid-before" && hasVal:
			if s.ValidBefore, err = parseSignerTime(val); err != nil {
				return s, fmt.Errorf("valid-before: %w", err)
			}
		default:
			return s, fmt.Errorf("option %q is not supported (namespaces, valid-after, valid-before)", o)
		}
	}
	return s, nil
}

// firstField splits off the principals field, which may be quoted.
func firstField(line string) (field, rest string, err error) {
	if strings.HasPrefix(line, `"`) {
		end := strings.IndexByte(line[1:], '"')
		if end < 0 {
			return "", "", errors.New("unterminated quote in principals")
		}
		return line[1 : end+1], strings.TrimSpace(line[end+2:]), nil
	}
	i := strings.IndexAny(line, " \t")
	if i < 0 {
		return "", "", errors.New("no key after the principals")
	}
	return line[:i], strings.TrimSpace(line[i:]), nil
}

// parseSignerTime reads YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS, in local
// time unless it ends in Z (as ssh-keygen does).
func parseSignerTime(v string) (time.Time, error) {
	loc := time.Local
	if strings.HasSuffix(v, "Z") || strings.HasSuffix(v, "z") {
		v, loc = v[:len(v)-1], time.UTC
	}
	var layout string
	switch len(v) {
	case 8:
		layout = "20060102"
	case 12:
		layout = "200601021504"
	case 14:
		layout = "20060102150405"
	default:
		return time.Time{}, fmt.Errorf("%q is not YYYYMMDD[HHMM[SS]][Z]", v)
	}
	t, err := time.ParseInLocation(layout, v, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not YYYYMMDD[HHMM[SS]][Z]", v)
	}
	return t, nil
}

// allows reports whether the signer may sign policies at now.
func (s Signer) allows(now time.Time) (bool, string) {
	if len(s.Namespaces) > 0 {
		ok := false
		for _, ns := range s.Namespaces {
			ok = ok || ns == Namespace
		}
		if !ok {
			return false, fmt.Sprintf("its namespaces (%s) do not include %s", strings.Join(s.Namespaces, ","), Namespace)
		}
	}
	if !s.ValidAfter.IsZero() && now.Before(s.ValidAfter) {
		return false, "it is valid only after " + s.ValidAfter.Format(time.RFC3339)
	}
	if !s.ValidBefore.IsZero() && !now.Before(s.ValidBefore) {
		return false, "it was valid only before " + s.ValidBefore.Format(time.RFC3339)
	}
	return true, ""
}

// Verify checks an armored SSHSIG signature of data in the warden-policy
// namespace against the signers at now, and returns the signer that made
// it.
func Verify(data, armored []byte, signers []Signer, now time.Time) (Signer, error) {
	sig, err := sshsig.Unarmor(armored)
	if err != nil {
		return Signer{}, fmt.Errorf("the signature does not parse: %w", err)
	}
	if sig.Namespace != Namespace {
		return Signer{}, fmt.Errorf("the signature is for namespace %q, not %q (sign with -n %s)", sig.Namespace, Namespace, Namespace)
	}
	if sig.Signature != nil && sig.Signature.Format == ssh.KeyAlgoRSA {
		return Signer{}, errors.New("the signature uses ssh-rsa (SHA-1); sign with an RSA SHA-2 or an Ed25519 key")
	}
	fp := ssh.FingerprintSHA256(sig.PublicKey)
	var why []string
	for _, s := range signers {
		if s.Fingerprint() != fp {
			continue
		}
		if ok, reason := s.allows(now); !ok {
			why = append(why, fmt.Sprintf("line %d lists the key but %s", s.Line, reason))
			continue
		}
		if err := sshsig.Verify(bytes.NewReader(data), sig, s.Key, sig.HashAlgorithm, Namespace); err != nil {
			return Signer{}, fmt.Errorf("the signature by %s does not match the file's content (%v)", fp, err)
		}
		return s, nil
	}
	if len(why) > 0 {
		return Signer{}, fmt.Errorf("signed by %s, which may not sign now: %s", fp, strings.Join(why, "; "))
	}
	return Signer{}, fmt.Errorf("signed by %s, a key allowed_signers does not list", fp)
}
