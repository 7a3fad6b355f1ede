package tools

import (
	"fmt"
	"sync"
)

// capture keeps the head and the tail of a stream that may be far larger
// than the model should read, and forwards every chunk to the live output.
type capture struct {
	mu      sync.Mutex
	stream  string
	headMax int
	tailMax int
	head    []byte
	tail    []byte // ring of the last tailMax bytes once head is full
	total   int64
	live    func(stream string, chunk []byte)
}

func newCapture(stream string, limit int, live func(string, []byte)) *capture {
	return &capture{stream: stream, headMax: limit / 2, tailMax: limit - limit/2, live: live}
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	if c.live != nil {
		c.live(c.stream, append([]byte(nil), p...))
	}
	rest := p
	if room := c.headMax - len(c.head); room > 0 {
		n := min(room, len(rest))
		c.head = append(c.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 {
		c.tail = append(c.tail, rest...)
		if over := len(c.tail) - c.tailMax; over > 0 {
			c.tail = append(c.tail[:0], c.tail[over:]...)
		}
	}
	return len(p), nil
}

// String is the kept text, with the cut marked where bytes were dropped.
func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	dropped := c.total - int64(len(c.head)) - int64(len(c.tail))
	if dropped <= 0 {
		return string(c.head) + string(c.tail)
	}
	return fmt.Sprintf("%s\n[... %d bytes truncated ...]\n%s", c.head, dropped, c.tail)
}

func (c *capture) truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total > int64(len(c.head)+len(c.tail))
}
