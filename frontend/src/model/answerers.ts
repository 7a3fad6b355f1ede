// The answerers and hooks as the window words them (Settings' "Answerers
// and hooks"): what each is, where it comes from, whether it runs, and what
// trusting one lets run. The words of states, kinds, tiers and answers are
// backend/policy/words.go's (generated into the bridge), the TUI's too.
import {
  answererAnswerWords,
  answererKindWords,
  answererStateWords,
  answererTierWords,
  type AnswererEntry,
  type AnswererRecord,
} from '../bridge'

export function kindText(e: AnswererEntry): string {
  return answererKindWords[`${e.role}:${e.kind}`] ?? `${e.kind} ${e.role}`
}

export function whereText(e: AnswererEntry): string {
  const tier = answererTierWords[e.tier]
  return e.file ? `${tier} (${e.file})` : tier
}

export type Tone = 'ok' | 'warn' | 'bad' | 'muted'

const stateTones: Record<AnswererEntry['state'], Tone> = {
  active: 'ok',
  untrusted: 'warn',
  changed: 'warn',
  'not-allowed': 'bad',
  broken: 'bad',
  'left-out': 'muted',
}

export const stateWords = Object.fromEntries(
  (Object.keys(stateTones) as AnswererEntry['state'][]).map((s) => [s, { label: answererStateWords[s], tone: stateTones[s] }]),
) as Record<AnswererEntry['state'], { label: string; tone: Tone }>

// A workspace's entry the user may trust: one not trusted yet, or one whose
// config or program changed since. Without both hashes the backend refuses
// (the program cannot be read), so no button is offered.
export function trustable(e: AnswererEntry): boolean {
  return e.tier === 'workspace' && (e.state === 'untrusted' || e.state === 'changed') && !!e.config_hash && !!e.program_hash
}

// A trusted workspace entry: its trust can be taken back.
export function untrustable(e: AnswererEntry): boolean {
  return e.tier === 'workspace' && e.state === 'active'
}

// The argument vector as one line a human can read (and paste into a shell).
export function commandLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')
}

function when(e: AnswererEntry): string {
  const tools = e.tools?.length ? ` of ${e.tools.join(', ')}` : ''
  if (e.role === 'hook') return e.kind === 'after' ? `after every tool call${tools}, with its result` : `before every tool call${tools}`
  return 'for every ask in this workspace, before you are asked'
}

// The confirmation before a trust: it names exactly what will run, when,
// and under which limits.
export function trustQuestion(e: AnswererEntry): string {
  const what = e.command?.length ? `\`${commandLine(e.command)}\`` : e.model ? `the reviewer model ${e.model}` : 'it'
  return (
    `Trust the ${kindText(e)} "${e.name}" from ${whereText(e)}? Warden will run ${what} ${when(e)}, ` +
    `in the read-only sandbox with no network. ` +
    (e.role === 'hook' && e.kind === 'before'
      ? 'It can only make a decision stricter. '
      : e.role === 'answerer'
        ? 'It can only answer asks the sandbox already admits. '
        : 'It cannot change any decision. ') +
    'If its config or program file changes, it stops and you are asked again.'
  )
}

export function untrustQuestion(e: AnswererEntry): string {
  return `Stop trusting the ${kindText(e)} "${e.name}"? It stops running in this workspace until you trust it again.`
}

export const answerWords: Readonly<Record<string, string>> = answererAnswerWords

export function recordText(r: AnswererRecord): string {
  const who = r.name ? `${r.kind} \`${r.name}\`` : r.kind
  return `${who} ${answerWords[r.answer] ?? r.answer} ${r.tool}`
}

export function latencyText(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`
}
