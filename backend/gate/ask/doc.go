// Package ask is the life cycle of every permission ask, in one place: one
// explicit state machine whose transitions are data (testdata/transitions.txt,
// embedded) and whose every move is first recorded as the store's own sealed
// event, so the session's log is the state.
//
// States:
//
//	new          nothing recorded yet
//	requested    a human was asked (permission_requested)
//	allowed      decided: the call may run (permission_granted)
//	denied       decided: the call is refused; final (permission_denied)
//	running      the call started (tool_invocation_started)
//	finished     the call ended, or was found stale before it ran; final
//	interrupted  the process ended while the call ran; final
//
// Transitions (testdata/transitions.txt is the authority):
//
//	new       --request-->                          requested
//	new       --allow / deny-->                     allowed / denied      the engine decided without asking
//	requested --answer-once / answer-always-->      allowed               a human said yes
//	requested --answer-deny-->                      denied                a human said no
//	requested --time-out / cancel-->                denied                no answer came; the turn was stopped
//	requested --supersede-allow / supersede-deny--> allowed / denied      an axis change re-decided it
//	requested --answerer-allow / answerer-deny-->   allowed / denied      an answerer answered before the human
//	allowed   --start-->                            running
//	allowed   --stale-->                            finished              its paths changed while it waited; nothing ran
//	running   --finish / fail-->                    finished
//	running   --interrupt-->                        interrupted           found running after a restart
//
// "allowed" and "denied" are the decided states. A tool's own question
// (present_plan, Direct) ends there: its answer is what the tool reads, and
// the tool's call is its own ask.
//
// Machine.Step checks the pair (state, transition) against the table,
// stamps the ask's identity and the transition's name (Via) on the event,
// appends it, and only then moves. A refused pair records nothing; of two
// racing answers one is recorded and the other is refused. Fold rebuilds the
// asks from a session's log after a restart, so nothing is asked twice: an
// ask answered before the restart is found allowed and runs; one found
// running is interrupted, never run again (the gate does this at
// start-up for every call a dead process left running).
//
// The machine is the one account of whether an ask is answered: whoever
// takes an answer (the gate, or its human seat)
// records it through Step, and a repeated answer asks the machine (Find,
// Ask.Answer) whether it is the one already taken. The table must not
// loop: every ask ends.
package ask
