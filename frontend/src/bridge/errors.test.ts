import { describe, expect, it } from 'vitest'
import { BridgeError, toBridgeError } from './errors'

describe('toBridgeError', () => {
  const cases: { name: string; reason: unknown; code: string; message: string }[] = [
    { name: 'Wails string rejection', reason: 'store: session not found', code: 'backend', message: 'store: session not found' },
    { name: 'Error object', reason: new Error('network down'), code: 'backend', message: 'network down' },
    { name: 'empty string', reason: '', code: 'backend', message: 'unknown error' },
    { name: 'plain object', reason: { a: 1 }, code: 'backend', message: 'unexpected rejection: {"a":1}' },
    { name: 'undefined', reason: undefined, code: 'backend', message: 'unexpected rejection: undefined' },
    {
      name: 'already a BridgeError keeps its code',
      reason: new BridgeError('no_backend', 'info', 'no backend'),
      code: 'no_backend',
      message: 'no backend',
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const e = toBridgeError('info', c.reason)
      expect(e).toBeInstanceOf(BridgeError)
      expect(e.code).toBe(c.code)
      expect(e.message).toBe(c.message)
      expect(e.operation).toBe('info')
    })
  }
})
