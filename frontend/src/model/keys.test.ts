import { describe, expect, it } from 'vitest'
import { isTextEntry, matchShortcut, shortcuts, type KeyLike } from './keys'

const el = (tag: string, attrs: Record<string, string> = {}) => {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
  return e
}

describe('isTextEntry', () => {
  const cases: { name: string; el: HTMLElement | null; want: boolean }[] = [
    { name: 'text input', el: el('input'), want: true },
    { name: 'search input', el: el('input', { type: 'search' }), want: true },
    { name: 'password input', el: el('input', { type: 'password' }), want: true },
    { name: 'number input', el: el('input', { type: 'number' }), want: true },
    { name: 'textarea', el: el('textarea'), want: true },
    { name: 'select', el: el('select'), want: true },
    { name: 'contenteditable', el: Object.assign(el('div'), { contentEditable: 'true' }), want: true },
    { name: 'radio button', el: el('input', { type: 'radio' }), want: false },
    { name: 'checkbox', el: el('input', { type: 'checkbox' }), want: false },
    { name: 'range', el: el('input', { type: 'range' }), want: false },
    { name: 'submit', el: el('input', { type: 'submit' }), want: false },
    { name: 'button', el: el('button'), want: false },
    { name: 'link', el: el('a', { href: '#' }), want: false },
    { name: 'dialog section', el: el('section', { tabindex: '-1' }), want: false },
    { name: 'nothing', el: null, want: false },
  ]
  for (const c of cases) it(c.name, () => expect(isTextEntry(c.el)).toBe(c.want))
})

const key = (k: Partial<KeyLike> & { key: string }): KeyLike => ({ ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, code: '', target: document.body, ...k })

describe('matchShortcut', () => {
  const text = el('textarea')
  const radio = el('input', { type: 'radio' })
  const cases: { name: string; e: KeyLike; mac?: boolean; want: string | null }[] = [
    { name: 'Ctrl+K palette', e: key({ key: 'k', code: 'KeyK', ctrlKey: true }), want: 'palette' },
    { name: 'Ctrl+K in a text field too', e: key({ key: 'k', code: 'KeyK', ctrlKey: true, target: text }), want: 'palette' },
    { name: 'Cmd+K on a Mac', e: key({ key: 'k', code: 'KeyK', metaKey: true }), mac: true, want: 'palette' },
    { name: 'Ctrl+K on a Mac is not the palette', e: key({ key: 'k', code: 'KeyK', ctrlKey: true }), mac: true, want: null },
    { name: 'Ctrl+Shift+K is not', e: key({ key: 'K', code: 'KeyK', ctrlKey: true, shiftKey: true }), want: null },
    { name: '? help', e: key({ key: '?', shiftKey: true }), want: 'help' },
    { name: '? typed in the message box is text', e: key({ key: '?', shiftKey: true, target: text }), want: null },
    { name: '? on a radio button is help', e: key({ key: '?', shiftKey: true, target: radio }), want: 'help' },
    { name: 'Alt+N new session', e: key({ key: 'n', code: 'KeyN', altKey: true }), want: 'new-session' },
    { name: 'Option+N on a Mac types ˜ but is the chord', e: key({ key: '˜', code: 'KeyN', altKey: true }), mac: true, want: 'new-session' },
    { name: 'Alt+N while typing', e: key({ key: 'n', code: 'KeyN', altKey: true, target: text }), want: 'new-session' },
    { name: 'Alt+↓ next session', e: key({ key: 'ArrowDown', altKey: true }), want: 'next-session' },
    { name: 'Alt+↑ previous session', e: key({ key: 'ArrowUp', altKey: true }), want: 'previous-session' },
    { name: 'Alt+3 third session', e: key({ key: '3', code: 'Digit3', altKey: true }), want: 'session-n:2' },
    { name: 'Alt+0 is nothing', e: key({ key: '0', code: 'Digit0', altKey: true }), want: null },
    { name: '/ focuses the composer', e: key({ key: '/' }), want: 'focus-composer' },
    { name: '/ in the composer is text', e: key({ key: '/', target: text }), want: null },
    { name: 'Esc stops', e: key({ key: 'Escape' }), want: 'stop' },
    { name: 'Esc in the composer stops too', e: key({ key: 'Escape', target: text }), want: 'stop' },
    { name: 'Alt+G grants', e: key({ key: 'g', code: 'KeyG', altKey: true }), want: 'tab-grants' },
    { name: 'Alt+A audit', e: key({ key: 'a', code: 'KeyA', altKey: true }), want: 'tab-audit' },
    { name: 'Alt+C chat', e: key({ key: 'c', code: 'KeyC', altKey: true }), want: 'tab-chat' },
    { name: 'Alt+, settings', e: key({ key: ',', code: 'Comma', altKey: true }), want: 'tab-settings' },
    { name: 'Ctrl+Alt+N is nothing', e: key({ key: 'n', code: 'KeyN', altKey: true, ctrlKey: true }), want: null },
    { name: 'a plain letter is nothing', e: key({ key: 'y', code: 'KeyY' }), want: null },
  ]
  for (const c of cases)
    it(c.name, () => {
      const m = matchShortcut(c.e, c.mac)
      expect(m ? (m.n !== undefined ? `${m.id}:${m.n}` : m.id) : null).toBe(c.want)
    })
  it('lists every shortcut it matches', () => {
    for (const id of ['palette', 'help', 'new-session', 'next-session', 'previous-session', 'session-n', 'focus-composer', 'stop', 'tab-chat', 'tab-grants', 'tab-audit', 'tab-settings'])
      expect(shortcuts.map((s) => s.id)).toContain(id)
  })
})
