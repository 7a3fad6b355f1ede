// Wails rejects a failed call with the Go error's text as a bare string; the
// HTTP transport gets a status and a JSON {error}. The bridge turns every
// rejection into one typed error the UI can show.

export type BridgeErrorCode =
  // No transport: the page is not inside the desktop app nor under `warden serve`.
  | 'no_backend'
  // The server refused the token (HTTP 401/403).
  | 'unauthorized'
  // The request never got an answer (network down, server gone).
  | 'network'
  // The backend ran the call and returned an error.
  | 'backend'

export class BridgeError extends Error {
  readonly code: BridgeErrorCode
  readonly operation: string

  constructor(code: BridgeErrorCode, operation: string, message: string) {
    super(message)
    this.name = 'BridgeError'
    this.code = code
    this.operation = operation
  }
}

export function toBridgeError(operation: string, reason: unknown): BridgeError {
  if (reason instanceof BridgeError) {
    return reason
  }
  let message: string
  if (typeof reason === 'string') {
    message = reason
  } else if (reason instanceof Error) {
    message = reason.message
  } else {
    message = `unexpected rejection: ${JSON.stringify(reason) ?? String(reason)}`
  }
  return new BridgeError('backend', operation, message || 'unknown error')
}
