// Package command runs the answerers and hooks that are external programs
// (`[[answerers]] kind = "command"`, `[[hooks]]`), always in the OS cage.
//
// # The protocol
//
// The program gets one JSON object on stdin and prints one JSON object on
// stdout; stderr is kept for the reason of a failure.
//
//	stdin  {"version": 1, "event": "ask" | "before_call" | "after_call",
//	        "tool", "arguments", "effects", "reasons", "signature", "risk",
//	        "session": {"id", "workspace", "approval", "sandbox"},
//	        "workspace", "axes": {"approval", "sandbox"}, "trace",
//	        "user_message",                         (ask)
//	        "decision": {"verdict", "reasons", ...}, (hooks)
//	        "result": {"is_error", "text"}}          (after_call)
//	stdout {"answer": "allow" | "deny" | "pass", "reason": "…"}   (ask)
//	       {"answer": "allow" | "ask" | "deny", "reason": "…"}    (before_call)
//	       anything or nothing                                     (after_call)
//
// A before_call "allow" (or "pass") lets the call through as the engine
// decided: a hook may only tighten. An after_call hook's output is ignored
// and its failure changes nothing.
//
// # Failing closed
//
// A program that times out, exits non-zero, is killed, prints nothing,
// prints something that is not exactly one JSON object, or answers a word
// that is not one of its answers, is a denial whose reason says so in
// words: "answerer `corp-check` timed out after 10 s". Its reason text is
// cut to 500 characters and stripped of control characters: it reaches the
// model and the human.
//
// # The cage
//
// The program runs with the read-only sandbox over the session's
// workspace (its working folder), no network (unless the lineup hands it an
// egress the organisation allows), the cage's environment allowlist and its
// hidden paths. Program files the agent could change (inside the
// workspace) or the cage hides (Warden's own folders, where a user may keep
// a hook script beside config.toml) are read once per run, hashed, and
// placed read-only under the cage's private /run: the program runs exactly
// the bytes whose hash the user trusted, whatever a monitor writes to the
// file meanwhile. Other files (the system's interpreters, ~/bin) run in
// place; their hash is kept per stat so a 10 MB interpreter is not read on
// every call. Where the cage cannot start, nothing runs: the answer is a
// denial naming why (container mode, where the outer container is the
// boundary, runs in place).
package command
