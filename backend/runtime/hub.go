package runtime

import (
	"context"
	"sync"
)

// hub fans pushes out to subscribers. Each subscriber has its own unbounded
// queue, so a slow window never blocks the loop or loses a stored event.
type hub struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

type subscriber struct {
	mu    sync.Mutex
	queue []Push
	wake  chan struct{}
}

func newHub() *hub { return &hub{subs: map[*subscriber]struct{}{}} }

func (h *hub) publish(p Push) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		s.mu.Lock()
		s.queue = append(s.queue, p)
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// subscribe delivers every push from now until ctx ends.
func (h *hub) subscribe(ctx context.Context) <-chan Push {
	s := &subscriber{wake: make(chan struct{}, 1)}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	out := make(chan Push)
	go func() {
		defer close(out)
		defer func() {
			h.mu.Lock()
			delete(h.subs, s)
			h.mu.Unlock()
		}()
		for {
			s.mu.Lock()
			batch := s.queue
			s.queue = nil
			s.mu.Unlock()
			for _, p := range batch {
				select {
				case out <- p:
				case <-ctx.Done():
					return
				}
			}
			if len(batch) > 0 {
				continue
			}
			select {
			case <-s.wake:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
