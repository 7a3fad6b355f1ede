import { describe, expect, it } from 'vitest'

// The frontend's layout rules, checked on the sources: screens and shared
// parts never subscribe to the bridge themselves (App.vue hands every push
// to the stores), and each screen's parts live in its views/ folder.
const sources = import.meta.glob(['./**/*.vue', './**/*.ts', '!./**/*.test.ts', '!./testing/**', '!./bridge/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>

// Every module the app is built from, bridge included, for the import graph.
const modules = import.meta.glob(['./**/*.vue', './**/*.ts', '!./**/*.test.ts', '!./**/*.bench.ts', '!./testing/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>

// importsOf lists the modules a source imports by a relative path, resolved
// to the keys of `modules` ('./model/reveal.ts').
function importsOf(path: string, src: string): string[] {
  const dir = path.slice(0, path.lastIndexOf('/'))
  const out: string[] = []
  for (const m of src.matchAll(/(?:import|export)[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
    const spec = m[1] ?? m[2]!
    const parts = dir.split('/')
    for (const seg of spec.split('/')) {
      if (seg === '..') parts.pop()
      else if (seg !== '.') parts.push(seg)
    }
    const base = parts.join('/')
    const hit = [base, `${base}.ts`, `${base}.vue`, `${base}/index.ts`].find((c) => c in modules)
    if (hit) out.push(hit)
  }
  return out
}

// cycles finds every import circle (each reported once, from its smallest
// member), by depth-first search over the graph.
function cycles(graph: Record<string, string[]>): string[][] {
  const found = new Map<string, string[]>()
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (n: string) => {
    state.set(n, 'open')
    stack.push(n)
    for (const m of graph[n] ?? []) {
      if (state.get(m) === 'open') {
        const ring = stack.slice(stack.indexOf(m))
        const k = ring.indexOf([...ring].sort()[0]!)
        const canon = [...ring.slice(k), ...ring.slice(0, k)]
        found.set(canon.join(' → '), canon)
      } else if (!state.has(m)) visit(m)
    }
    stack.pop()
    state.set(n, 'done')
  }
  for (const n of Object.keys(graph).sort()) if (!state.has(n)) visit(n)
  return [...found.values()]
}

describe('import graph', () => {
  it('has no circle', () => {
    const graph = Object.fromEntries(Object.entries(modules).map(([p, src]) => [p, importsOf(p, src)]))
    expect(Object.keys(graph).length).toBeGreaterThan(50)
    expect(graph['./model/reveal.ts']).toContain('./model/invisible.ts')
    expect(cycles(graph).map((c) => c.join(' → '))).toEqual([])
  })
  it('finds a circle when there is one', () => {
    const cases: { name: string; graph: Record<string, string[]>; want: string[] }[] = [
      { name: 'two modules', graph: { a: ['b'], b: ['a'] }, want: ['a → b'] },
      { name: 'three, entered in the middle', graph: { b: ['c'], c: ['a'], a: ['b'], d: ['b'] }, want: ['a → b → c'] },
      { name: 'self import', graph: { a: ['a'] }, want: ['a'] },
      { name: 'a diamond is no circle', graph: { a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }, want: [] },
    ]
    for (const c of cases) expect(cycles(c.graph).map((r) => r.join(' → ')), c.name).toEqual(c.want)
  })
})

describe('frontend layout', () => {
  it('App.vue is the only subscriber to pushes', () => {
    const subscribers = Object.entries(sources)
      .filter(([, src]) => /\.subscribe\(/.test(src))
      .map(([path]) => path)
    expect(subscribers).toEqual(['./App.vue'])
  })

  it('a shared component is used by more than one screen', () => {
    const screenOf = (path: string) => /^\.\/views\/([^/]+)\//.exec(path)?.[1]
    const shared = Object.keys(sources).filter((p) => p.startsWith('./components/'))
    expect(shared.length).toBeGreaterThan(0)
    for (const c of shared) {
      const name = c.slice(c.lastIndexOf('/') + 1)
      const users = new Set<string>()
      // A component used by another shared component counts for that one's screens.
      const reach = (file: string, seen: Set<string>) => {
        for (const [path, src] of Object.entries(sources)) {
          const n = file.slice(file.lastIndexOf('/') + 1)
          if (seen.has(path) || !src.includes(`/${n}'`)) continue
          seen.add(path)
          const screen = screenOf(path)
          if (screen) users.add(screen)
          else if (path.startsWith('./components/')) reach(path, seen)
        }
      }
      reach(c, new Set([c]))
      expect([...users].sort(), `${name} is used by`).toSatisfy((u: string[]) => u.length > 1)
    }
  })
})
