package store

import (
	"context"
	"sync"
	"time"
)

// hub wakes subscriptions after each commit in this process.
type hub struct {
	mu sync.Mutex
	ch chan struct{}
}

func newHub() *hub { return &hub{ch: make(chan struct{})} }

// wait returns a channel closed at the next commit.
func (h *hub) wait() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ch
}

func (h *hub) notify() {
	h.mu.Lock()
	close(h.ch)
	h.ch = make(chan struct{})
	h.mu.Unlock()
}

// SubscribeFilter selects what a subscription delivers.
type SubscribeFilter struct {
	SessionID string // "" for every session
	Kinds     []Kind // empty for all
	AfterSeq  int64  // start after this seq; 0 starts at the first event, -1 at the current end
}

// Subscription is a live tail of the log.
type Subscription struct {
	c    chan StoredEvent
	mu   sync.Mutex
	err  error
	done chan struct{}
}

// Events delivers every matching event in seq order, without gaps. It is
// closed when the context ends, the store closes, or a read fails (see Err).
func (sub *Subscription) Events() <-chan StoredEvent { return sub.c }

// Err is why Events closed: nil after the context ended or the store closed.
func (sub *Subscription) Err() error {
	<-sub.done
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.err
}

// Subscribe starts a must-deliver live tail: it pages through the database
// from a cursor, so nothing is dropped and a slow reader only falls behind;
// writers are never blocked. Commits in this process wake it immediately;
// commits by other processes are seen within the poll interval.
func (s *Store) Subscribe(ctx context.Context, f SubscribeFilter) (*Subscription, error) {
	cursor := f.AfterSeq
	if cursor < 0 {
		if err := s.r.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) FROM events").Scan(&cursor); err != nil {
			return nil, err
		}
	}
	sub := &Subscription{c: make(chan StoredEvent, 64), done: make(chan struct{})}
	go s.tail(ctx, sub, f, cursor)
	return sub, nil
}

func (s *Store) tail(ctx context.Context, sub *Subscription, f SubscribeFilter, cursor int64) {
	defer close(sub.done)
	defer close(sub.c)
	tick := time.NewTicker(s.poll)
	defer tick.Stop()
	for {
		wake := s.hub.wait() // taken before reading, so no commit slips between
		evs, err := s.Events(ctx, EventQuery{SessionID: f.SessionID, Kinds: f.Kinds, AfterSeq: cursor, Limit: 500})
		if err != nil {
			if ctx.Err() == nil && !s.isClosed() {
				sub.mu.Lock()
				sub.err = err
				sub.mu.Unlock()
			}
			return
		}
		for _, e := range evs {
			select {
			case sub.c <- e:
				cursor = e.Seq
			case <-ctx.Done():
				return
			case <-s.closed:
				return
			}
		}
		if len(evs) == 500 {
			continue
		}
		select {
		case <-wake:
		case <-tick.C:
		case <-ctx.Done():
			return
		case <-s.closed:
			return
		}
	}
}

func (s *Store) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}
