package store

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"strconv"
)

// Key is the installation's audit key, the secret the hash chain is keyed
// with. It lives outside the database (see package auditkey), so a person
// who can write the database file but not read the key cannot rebuild a
// chain that verifies.
type Key []byte

// MinKeyLen is the shortest key Open accepts: the 256 bits of HMAC-SHA256.
const MinKeyLen = 32

// ChainKind says how an event's hash was computed.
type ChainKind int

const (
	// ChainSHA256 is the keyless chain of databases written before keying:
	// sha256(prev_hash || envelope). Anyone can recompute it; it is only
	// trusted as the prefix the session's keyed head MAC pins.
	ChainSHA256 ChainKind = 0
	// ChainHMAC is HMAC-SHA256(event key, prev_hash || envelope).
	ChainHMAC ChainKind = 1
)

func (c ChainKind) String() string {
	switch c {
	case ChainSHA256:
		return "sha256"
	case ChainHMAC:
		return "hmac-sha256"
	}
	return "unknown(" + strconv.Itoa(int(c)) + ")"
}

// chainer holds the two keys derived from the audit key: one for event
// hashes and one for session heads, so that no event MAC can ever be
// presented as a head MAC or the other way round.
type chainer struct {
	eventKey []byte
	headKey  []byte
}

func newChainer(k Key) (chainer, error) {
	if len(k) < MinKeyLen {
		return chainer{}, fmt.Errorf("store: audit key of %d bytes; need at least %d", len(k), MinKeyLen)
	}
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, k)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	return chainer{eventKey: derive("warden audit: event chain v1"), headKey: derive("warden audit: session head v1")}, nil
}

// eventHasher returns the hash of the given chain kind; keyed hashers are
// reused across a batch with Reset.
func (c chainer) eventHasher(kind ChainKind) (hash.Hash, error) {
	switch kind {
	case ChainSHA256:
		return sha256.New(), nil
	case ChainHMAC:
		return hmac.New(sha256.New, c.eventKey), nil
	}
	return nil, fmt.Errorf("unknown chain kind %d", kind)
}

// headMAC binds a session's head: its ID, how many events it has, from
// which version on it is keyed and the hash of its last event.
func (c chainer) headMAC(sessionID string, version, chainFrom int64, head []byte) []byte {
	m := hmac.New(sha256.New, c.headKey)
	b := make([]byte, 0, len(sessionID)+len(head)+48)
	b = strconv.AppendQuote(b, sessionID)
	b = append(b, ' ')
	b = strconv.AppendInt(b, version, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, chainFrom, 10)
	b = append(b, ' ')
	b = append(b, head...)
	m.Write(b)
	return m.Sum(nil)
}

var zeroHash = make([]byte, sha256.Size)

// errHeadMAC is returned by an append to a session whose head does not
// verify: appending would re-key a tampered head and wash the tampering.
var errHeadMAC = errors.New("its chain head does not verify under this installation's audit key")

// chainHash is the plain sha256 link, the chain of databases before keying.
func chainHash(prev []byte, sessionID string, version int64, kind Kind, timeMs int64, payload []byte) []byte {
	return chainSum(sha256.New(), prev, jsonString(sessionID), version, jsonString(string(kind)), timeMs, payload)
}

// chainSum hashes prev || canonical envelope with h (reset first). The
// envelope is built by hand in canonical key order so Verify can rebuild it
// from the columns; the session ID and kind come JSON-quoted, so a batch
// quotes them once.
func chainSum(h hash.Hash, prev, sessionJSON []byte, version int64, kindJSON []byte, timeMs int64, payload []byte) []byte {
	b := make([]byte, 0, len(prev)+len(payload)+len(sessionJSON)+len(kindJSON)+96)
	b = append(b, prev...)
	b = append(b, `{"data":`...)
	b = append(b, payload...)
	b = append(b, `,"kind":`...)
	b = append(b, kindJSON...)
	b = append(b, `,"session_id":`...)
	b = append(b, sessionJSON...)
	b = append(b, `,"time_ms":`...)
	b = strconv.AppendInt(b, timeMs, 10)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, version, 10)
	b = append(b, '}')
	h.Reset()
	h.Write(b)
	return h.Sum(nil)
}

// sameMAC compares in constant time.
func sameMAC(a, b []byte) bool { return len(a) == len(b) && hmac.Equal(a, b) }
