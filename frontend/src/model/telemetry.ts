import type { ExportStatus } from '../bridge'

// Words of the Settings panel for the OpenTelemetry export.

export function exportStateText(s: ExportStatus): { label: string; tone: 'ok' | 'bad' | 'muted' | 'warn' } {
  switch (s.state) {
    case 'ok':
      return { label: 'Sending', tone: 'ok' }
    case 'failing':
      return { label: 'Failing — records wait in the outbox', tone: 'bad' }
    case 'waiting':
      return { label: 'Nothing sent yet', tone: 'warn' }
    default:
      return { label: 'Off', tone: 'muted' }
  }
}

const int = new Intl.NumberFormat('en-US')

// agoText says how long ago a time was, in the largest whole unit.
export function agoText(ms: number, now: number): string {
  if (!ms) return 'never'
  const s = Math.max(0, Math.round((now - ms) / 1000))
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`
  return `${Math.floor(s / 86400)} d ago`
}

export function queuedText(s: ExportStatus, now: number): string {
  if (s.queued === 0) return 'none'
  return `${int.format(s.queued)} (oldest queued ${agoText(s.oldest_ms, now)})`
}

export function countText(n: number): string {
  return int.format(n)
}
