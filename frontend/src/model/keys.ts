// The window's keyboard: one table of shortcuts (the `?` overlay lists it,
// the shell dispatches from it) and the one rule for when a key is text.

// isTextEntry says whether a key pressed with focus on el types text there:
// text fields, text areas, editable content and selects (whose letters pick
// an option). Radio buttons, checkboxes, buttons and links do not take
// text, so the window's keys (the prompt's y/a/n, `?`) work on them.
export function isTextEntry(el: EventTarget | null): boolean {
  const e = el as HTMLElement | null
  if (!e || !e.tagName) return false
  if (e.isContentEditable) return true
  const tag = e.tagName.toLowerCase()
  if (tag === 'textarea' || tag === 'select') return true
  if (tag !== 'input') return false
  const type = ((e as HTMLInputElement).type || 'text').toLowerCase()
  return !nonTextInputs.has(type)
}

const nonTextInputs = new Set(['radio', 'checkbox', 'button', 'submit', 'reset', 'image', 'file', 'range', 'color', 'hidden'])

export type ShortcutId =
  | 'palette'
  | 'help'
  | 'new-session'
  | 'next-session'
  | 'previous-session'
  | 'session-n'
  | 'focus-composer'
  | 'stop'
  | 'tab-chat'
  | 'tab-grants'
  | 'tab-audit'
  | 'tab-settings'

export interface Shortcut {
  id: ShortcutId
  // How the overlay writes the keys, per platform.
  keys: string
  mac: string
  what: string
  // Whether it also fires while typing in a text field.
  inText: boolean
}

// The table, in the order the overlay lists it. Alt chords are matched on
// the physical key (KeyN), so Option on a Mac (which types "˜") works too.
// Ctrl+N, Ctrl+T and Ctrl+W belong to the browser under `warden serve`,
// so the window does not use them.
export const shortcuts: readonly Shortcut[] = [
  { id: 'palette', keys: 'Ctrl+K', mac: '⌘K', what: 'Find a session or a command', inText: true },
  { id: 'help', keys: '?', mac: '?', what: 'These shortcuts', inText: false },
  { id: 'new-session', keys: 'Alt+N', mac: '⌥N', what: 'New session', inText: true },
  { id: 'previous-session', keys: 'Alt+↑', mac: '⌥↑', what: 'Previous session', inText: true },
  { id: 'next-session', keys: 'Alt+↓', mac: '⌥↓', what: 'Next session', inText: true },
  { id: 'session-n', keys: 'Alt+1 … Alt+9', mac: '⌥1 … ⌥9', what: 'Open the first … ninth session', inText: true },
  { id: 'focus-composer', keys: '/', mac: '/', what: 'Type a message (focus the message box)', inText: false },
  { id: 'stop', keys: 'Esc', mac: 'Esc', what: 'Stop the running turn (when nothing else is open)', inText: true },
  { id: 'tab-chat', keys: 'Alt+C', mac: '⌥C', what: 'Chat', inText: true },
  { id: 'tab-grants', keys: 'Alt+G', mac: '⌥G', what: 'Grants', inText: true },
  { id: 'tab-audit', keys: 'Alt+A', mac: '⌥A', what: 'Audit trail', inText: true },
  { id: 'tab-settings', keys: 'Alt+,', mac: '⌥,', what: 'Settings', inText: true },
]

// The permission prompt's own keys, listed in the overlay too.
export const promptKeys: readonly { keys: string; what: string }[] = [
  { keys: 'y', what: 'Allow once' },
  { keys: 'a', what: 'Always allow (with the scope chosen)' },
  { keys: 'n or Esc', what: 'Deny' },
]

export interface KeyLike {
  key: string
  code?: string
  ctrlKey: boolean
  metaKey: boolean
  altKey: boolean
  shiftKey: boolean
  target?: EventTarget | null
}

export interface Match {
  id: ShortcutId
  // session-n: which session (0-based).
  n?: number
}

// matchShortcut reads one keydown; mac says Cmd stands for Ctrl. A key
// typed into a text field only counts for the chords marked inText.
export function matchShortcut(e: KeyLike, mac = false): Match | null {
  const cmd = mac ? e.metaKey : e.ctrlKey
  const text = isTextEntry(e.target ?? null)
  const code = e.code ?? ''
  let m: Match | null = null
  if (cmd && !e.altKey && !e.shiftKey && (e.key === 'k' || e.key === 'K' || code === 'KeyK')) m = { id: 'palette' }
  else if (e.altKey && !e.ctrlKey && !e.metaKey) {
    if (code === 'KeyN') m = { id: 'new-session' }
    else if (code === 'KeyC') m = { id: 'tab-chat' }
    else if (code === 'KeyG') m = { id: 'tab-grants' }
    else if (code === 'KeyA') m = { id: 'tab-audit' }
    else if (code === 'Comma') m = { id: 'tab-settings' }
    else if (e.key === 'ArrowUp') m = { id: 'previous-session' }
    else if (e.key === 'ArrowDown') m = { id: 'next-session' }
    else if (/^Digit[1-9]$/.test(code)) m = { id: 'session-n', n: Number(code.slice(5)) - 1 }
  } else if (!e.ctrlKey && !e.metaKey && !e.altKey) {
    if (e.key === '?') m = { id: 'help' }
    else if (e.key === '/' && !e.shiftKey) m = { id: 'focus-composer' }
    else if (e.key === 'Escape') m = { id: 'stop' }
  }
  if (!m) return null
  const sc = shortcuts.find((s) => s.id === m!.id)!
  if (text && !sc.inText) return null
  return m
}

// isMac picks the ⌘ spelling and chord.
export function isMac(platform: string): boolean {
  return /mac|iphone|ipad/i.test(platform)
}
