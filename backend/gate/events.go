package gate

// Event is what the gate tells the front ends' service as asks open and
// close: a sealed set (AskOpened, AskClosed). Everything else the gate
// does is an event in the store, delivered by the store's subscription.
type Event interface{ gateEvent() }

// AskOpened: a call now waits for a human to answer this ask.
type AskOpened struct{ Pending Pending }

// AskClosed: an ask a human was shown is decided (answered, timed out,
// cancelled, re-decided, answered by an answerer).
type AskClosed struct{ SessionID, RequestID string }

func (AskOpened) gateEvent() {}
func (AskClosed) gateEvent() {}

// Listen calls fn with every event from now on, on the goroutine that
// caused it (fn must not block); the returned func stops it. The runtime
// passes its publish callback in here, so the gate never calls up.
func (g *Gate) Listen(fn func(Event)) (stop func()) {
	g.lmu.Lock()
	defer g.lmu.Unlock()
	id := g.nextL
	g.nextL++
	g.listeners[id] = fn
	return func() {
		g.lmu.Lock()
		delete(g.listeners, id)
		g.lmu.Unlock()
	}
}

func (g *Gate) publish(ev Event) {
	g.lmu.Lock()
	fns := make([]func(Event), 0, len(g.listeners))
	for _, fn := range g.listeners {
		fns = append(fns, fn)
	}
	g.lmu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}
