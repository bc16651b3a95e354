import { describe, expect, it } from 'vitest';
import { catalogCliOf, checkModelCatalogs, type ModelCatalog } from '../../src/lint/models.js';
import type { HarnessDoc, LintInput } from '../../src/lint/types.js';

const harness = (name: string, command: string[]): HarnessDoc => ({ file: `${name}.yml`, name, data: { command, prompt_template: 'x' } });

const input = (models: unknown): LintInput => ({
  profiles: [],
  cards: [],
  harnesses: [harness('codex', ['node', '/h/bin/codex-isolated.mjs', 'exec']), harness('opencode', ['opencode', 'run'])],
  models: { file: '/board/models.yml', data: models },
  defaultHarness: 'codex',
});

const catalogs = new Map<string, ModelCatalog>([
  ['codex', { cli: 'codex', known: new Set(['gpt-6.2-sol', 'gpt-6-luna', 'codex-auto-review']), hidden: new Set(['codex-auto-review']) }],
  ['opencode', { cli: 'opencode', known: new Set(['anthropic/claude-sonnet-5']), hidden: new Set() }],
]);

describe('models the installed CLIs do not know (board lint warnings)', () => {
  it('warns about a model the CLI does not know or hides, per harness row and level', () => {
    const warnings = checkModelCatalogs(input({ codex: { minimum: 'gpt-6-luna', standard: 'gpt-5.1-codex', advanced: 'codex-auto-review' }, opencode: { standard: 'anthropic/claude-sonnet-5' } }), catalogs);
    expect(warnings).toEqual([
      { check: 'models', severity: 'warning', file: '/board/models.yml', field: 'codex.standard', reason: expect.stringContaining('codex does not know model "gpt-5.1-codex"') },
      { check: 'models', severity: 'warning', file: '/board/models.yml', field: 'codex.advanced', reason: expect.stringContaining('hidden') },
    ]);
  });

  it('says nothing for a harness whose CLI could not be asked (Claude Code, or not installed)', () => {
    expect(checkModelCatalogs(input({ 'claude-code': { standard: 'claude-sonnet-4-5' } }), catalogs)).toEqual([]);
  });

  it('knows which harnesses run a CLI that can be asked offline', () => {
    expect(catalogCliOf(harness('x', ['node', '/a/codex-isolated.mjs', 'exec']))).toBe('codex');
    expect(catalogCliOf(harness('x', ['/usr/bin/opencode', 'run']))).toBe('opencode');
    expect(catalogCliOf(harness('x', ['node', '/a/claude-isolated.mjs']))).toBeNull();
  });
});
