import { describe, expect, it } from 'vitest'

// The frontend's layout rules, checked on the sources: screens and shared
// parts never subscribe to the bridge themselves (App.vue hands every push
// to the stores), and each screen's parts live in its views/ folder.
const sources = import.meta.glob(['./**/*.vue', './**/*.ts', '!./**/*.test.ts', '!./testing/**', '!./bridge/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>

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
