// Splits a unified diff into typed lines for a diff view.
export type DiffLine = { kind: 'add' | 'del' | 'hunk' | 'meta' | 'ctx'; text: string }

export function parseDiff(diff: string): DiffLine[] {
  return diff
    .replace(/\n$/, '')
    .split('\n')
    .map((text): DiffLine => {
      if (text.startsWith('+++') || text.startsWith('---') || text.startsWith('diff ') || text.startsWith('index '))
        return { kind: 'meta', text }
      if (text.startsWith('@@')) return { kind: 'hunk', text }
      if (text.startsWith('+')) return { kind: 'add', text }
      if (text.startsWith('-')) return { kind: 'del', text }
      return { kind: 'ctx', text }
    })
}
