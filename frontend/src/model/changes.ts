// Words for a change set (workspace_changed): the one-line summary under a
// tool item and each file's stat. Pure, so Vitest covers it without a DOM.
import type { FileChange, WorkspaceChange } from '../bridge'

const isLink = (m?: string) => m === '120000'

export function humanSize(n: number): string {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MB`
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KB`
  return `${n} B`
}

// fileStat is "+12 −3", "deleted, −40", "new, binary 2.0 MB", "symlink"...;
// withChange false leaves out "new, " and "deleted, " (a row that names the
// change already).
export function fileStat(f: FileChange, withChange = true): string {
  let s: string
  if (isLink(f.mode) || (!f.mode && isLink(f.old_mode))) s = 'symlink'
  else if (f.binary) s = `binary ${humanSize(f.change === 'deleted' ? f.old_size : f.size)}`
  else if (f.diff_omitted && !f.diff && !f.added && !f.removed) s = humanSize(f.change === 'deleted' ? f.old_size : f.size)
  else s = `+${f.added} −${f.removed}`
  if (f.change === 'created') return withChange ? `new, ${s}` : s
  if (f.change === 'deleted') return withChange ? `deleted, ${s}` : s
  if (f.old_mode && f.mode && f.old_mode !== f.mode) s += `, mode ${f.old_mode}→${f.mode}`
  return s
}

export function fileCount(c: WorkspaceChange): number {
  return (c.files?.length ?? 0) + (c.omitted ?? 0)
}

// summary is "3 files changed: src/a.go (+12 −3), b.txt (new, +1 −0) …".
export function summary(c: WorkspaceChange, shown = 3): string {
  const n = fileCount(c)
  if (n === 0) return c.error ? 'No checkpoint' : 'No files changed'
  const files = (c.files ?? []).slice(0, shown).map((f) => `${f.path} (${fileStat(f)})`)
  const more = n > shown ? ' …' : ''
  return `${n} ${n === 1 ? 'file' : 'files'} changed: ${files.join(', ')}${more}`
}

// heading names what made a change that is not a tool call's.
export function causeLabel(c: WorkspaceChange): string {
  switch (c.cause) {
    case 'undo':
      return 'Undo'
    case 'restore':
      return 'Restore'
    case 'outside':
      return 'Changed between calls (a monitor, you, or another program)'
  }
  return c.tool ?? 'Call'
}

// warningText is the banner of a destructive call no human allowed.
export function warningText(c: WorkspaceChange): string {
  const w = c.warning
  if (!w) return ''
  const parts = []
  if (w.deleted) parts.push(`deleted ${w.deleted} tracked ${w.deleted === 1 ? 'file' : 'files'}`)
  if (w.truncated) parts.push(`truncated ${w.truncated}`)
  const by = c.allowed_by ? ` (allowed by ${c.allowed_by}, not by you)` : ' (allowed without you)'
  return `This ${c.caged ? 'caged ' : ''}call${by} ${parts.join(' and ')} — over the threshold: ${w.threshold}.`
}
