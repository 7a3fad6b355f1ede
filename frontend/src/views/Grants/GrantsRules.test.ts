import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import type { RuleView } from '../../bridge'
import GrantsPanel from './GrantsPanel.vue'

const rules: RuleView[] = [
  { tier: 'org', file: '/etc/warden/policy.toml', line: 12, match: 'command `git push`', decision: 'deny', why: 'pushes go through CI', read_only: true },
  { tier: 'user', file: '/home/u/.config/warden/rules.toml', line: 3, match: 'command `make`', decision: 'allow', why: 'reviewed', read_only: false },
  {
    tier: 'workspace',
    file: '/ws/.warden/rules.toml',
    line: 1,
    match: 'command `ls`',
    decision: 'allow',
    why: 'the repo wants it',
    read_only: false,
    ignored: "a workspace's allow rules apply only when the organisation's policy permits them",
  },
]

describe('GrantsPanel rules', () => {
  it('lists the rules with tier and source, organisation rules read-only', () => {
    const w = mount(GrantsPanel, { props: { grants: [], rules } })
    const rows = w.findAll('[data-testid="rule-row"]')
    expect(rows).toHaveLength(3)
    expect(rows[0]!.text()).toContain('Organisation')
    expect(rows[0]!.text()).toContain('read-only')
    expect(rows[0]!.text()).toContain('/etc/warden/policy.toml:12')
    expect(rows[1]!.text()).not.toContain('read-only')
    expect(rows[2]!.text()).toContain('Ignored:')
    expect(rows[2]!.classes()).toContain('ignored')
    // Rules have no revoke button: they change in their files.
    expect(w.findAll('[data-testid="rule-row"] button')).toHaveLength(0)
  })
  it('no rules, no section', () => {
    const w = mount(GrantsPanel, { props: { grants: [] } })
    expect(w.find('[aria-label="Rules"]').exists()).toBe(false)
  })
})
