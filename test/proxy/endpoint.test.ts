import { describe, expect, it } from 'vitest';
import { normalizeUpstream, placeholderOf, resolveEndpoint, secretsFor } from '../../src/proxy/endpoint.js';
import { harnessSchema } from '../../src/schema/harness.js';

const harness = (fields: Record<string, unknown>) => harnessSchema.parse({ command: ['x'], prompt_template: 'p', ...fields });

describe('resolveEndpoint', () => {
  it.each([
    ['a declared endpoint wins', { endpoint: { url_env: 'MY_URL', upstream: 'https://gw.example/v2/' }, environment_from_private: ['ANTHROPIC_API_KEY'] }, 'MY_URL', 'https://gw.example/v2'],
    ['ANTHROPIC_BASE_URL in environment is the upstream', { environment: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:4000' }, environment_from_private: ['ANTHROPIC_API_KEY'] }, 'ANTHROPIC_BASE_URL', 'http://127.0.0.1:4000'],
    ['OPENAI_BASE_URL keeps its /v1', { environment: { OPENAI_BASE_URL: 'http://127.0.0.1:4000/v1' } }, 'OPENAI_BASE_URL', 'http://127.0.0.1:4000/v1'],
    ['LOCAL_MODEL_URL (the local-model harness)', { environment: { LOCAL_MODEL_URL: 'http://127.0.0.1:8080' } }, 'LOCAL_MODEL_URL', 'http://127.0.0.1:8080'],
    ['LOCAL_MODEL_URL with /v1, which its worker drops', { environment: { LOCAL_MODEL_URL: 'http://127.0.0.1:8080/v1/' } }, 'LOCAL_MODEL_URL', 'http://127.0.0.1:8080'],
    ['inferred from ANTHROPIC_API_KEY', { environment_from_private: ['ANTHROPIC_API_KEY'] }, 'ANTHROPIC_BASE_URL', 'https://api.anthropic.com'],
    ['inferred from OPENAI_API_KEY', { environment_from_private: ['OTHER', 'OPENAI_API_KEY'] }, 'OPENAI_BASE_URL', 'https://api.openai.com/v1'],
    ['url_env alone takes its value from environment', { endpoint: { url_env: 'GW' }, environment: { GW: 'https://gw.example' } }, 'GW', 'https://gw.example'],
    ['upstream alone keeps the inferred variable', { endpoint: { upstream: 'https://gw.example' }, environment_from_private: ['OPENAI_API_KEY'] }, 'OPENAI_BASE_URL', 'https://gw.example'],
  ])('%s', (_name, fields, urlEnv, upstream) => {
    const choice = resolveEndpoint(harness(fields));
    expect(choice).toMatchObject({ ok: true, endpoint: { urlEnv, upstream } });
  });

  it('gives a placeholder for every private key, never the key', () => {
    const choice = resolveEndpoint(harness({ environment_from_private: ['ANTHROPIC_API_KEY', 'EXTRA_TOKEN'] }));
    if (!choice.ok) throw new Error(choice.reason);
    expect([...choice.endpoint.placeholders]).toEqual([
      ['ANTHROPIC_API_KEY', 'board-placeholder-ANTHROPIC_API_KEY'],
      ['EXTRA_TOKEN', 'board-placeholder-EXTRA_TOKEN'],
    ]);
  });

  it.each([
    ['no key and no URL variable', {}, /no model endpoint/],
    ['a URL variable without value or default', { endpoint: { url_env: 'GW' } }, /no upstream for GW/],
    ['a non-http value in environment', { environment: { ANTHROPIC_BASE_URL: 'file:///etc/passwd' } }, /ANTHROPIC_BASE_URL: .*not an http/],
    ['credentials in the URL', { environment: { OPENAI_BASE_URL: 'https://u:p@gw.example/v1' } }, /credentials/],
  ])('refuses %s', (_name, fields, reason) => {
    const choice = resolveEndpoint(harness(fields));
    expect(choice.ok).toBe(false);
    if (!choice.ok) expect(choice.reason).toMatch(reason);
  });

  it('resolves every shipped harness', async () => {
    const { loadYaml } = await import('../../src/format/frontmatter.js');
    const fs = await import('node:fs/promises');
    for (const [name, urlEnv, upstream] of [
      ['claude-code', 'ANTHROPIC_BASE_URL', 'https://api.anthropic.com'],
      ['codex', 'OPENAI_BASE_URL', 'https://api.openai.com/v1'],
      ['opencode', 'ANTHROPIC_BASE_URL', 'https://api.anthropic.com'],
      ['local-model', 'LOCAL_MODEL_URL', 'http://127.0.0.1:8080'],
    ] as const) {
      const parsed = harnessSchema.parse(loadYaml(await fs.readFile(`harnesses/${name}.yml`, 'utf8')));
      expect(resolveEndpoint(parsed), name).toMatchObject({ ok: true, endpoint: { urlEnv, upstream } });
    }
  });
});

describe('normalizeUpstream and secretsFor', () => {
  it('drops the trailing slash, refuses query and fragment', () => {
    expect(normalizeUpstream('https://API.example.com:8443/v1/')).toBe('https://api.example.com:8443/v1');
    expect(normalizeUpstream('https://a.example/?x=1')).toMatchObject({ reason: /query/ });
  });

  it('maps placeholders to the private values it has', () => {
    const placeholders = new Map([['A_KEY', placeholderOf('A_KEY')], ['B_KEY', placeholderOf('B_KEY')]]);
    expect([...secretsFor(placeholders, new Map([['A_KEY', 'sk-a'], ['C_KEY', 'sk-c']]))]).toEqual([['board-placeholder-A_KEY', 'sk-a']]);
  });
});

describe('harness schema: endpoint and budget', () => {
  it('is strict and takes http(s) upstreams only', () => {
    expect(harnessSchema.safeParse({ command: ['x'], prompt_template: 'p', endpoint: { upstream: 'ftp://x.example' } }).success).toBe(false);
    expect(harnessSchema.safeParse({ command: ['x'], prompt_template: 'p', endpoint: { upstream: 'https://x.example', extra: 1 } }).success).toBe(false);
    expect(harnessSchema.safeParse({ command: ['x'], prompt_template: 'p', budget: { tokens: 1000, usd: 0.5 } }).success).toBe(true);
    expect(harnessSchema.safeParse({ command: ['x'], prompt_template: 'p', budget: { tokens: -1 } }).success).toBe(false);
  });
});

describe('prepareRunProxy', () => {
  it('gives the proxy options and a worker environment without any private value', async () => {
    const { prepareRunProxy } = await import('../../src/proxy/index.js');
    const prepared = prepareRunProxy({
      harness: harness({ environment_from_private: ['OPENAI_API_KEY'], budget: { tokens: 1000, usd: 1 } }),
      profileBudget: { tokens: 500 },
      board: { prices: { m: { input: 1, output: 2 } }, privateEnv: new Map([['OPENAI_API_KEY', 'sk-secret'], ['OTHER_KEY', 'sk-other']]), config: { logsDir: '/logs', daily_budget: { usd: 5 } } },
      run: 'r1',
      card: 'c.md',
    });
    if (!prepared.ok) throw new Error(prepared.reason);
    expect(prepared.options).toEqual({
      upstream: 'https://api.openai.com/v1',
      secrets: new Map([['board-placeholder-OPENAI_API_KEY', 'sk-secret']]),
      prices: { m: { input: 1, output: 2 } },
      ledger: { logsDir: '/logs', run: 'r1', card: 'c.md' },
      budget: { tokens: 500, usd: 1 },
      dailyBudget: { usd: 5 },
    });
    const env = prepared.workerEnv('http://127.0.0.1:47001');
    expect(env).toEqual({ OPENAI_BASE_URL: 'http://127.0.0.1:47001', OPENAI_API_KEY: 'board-placeholder-OPENAI_API_KEY' });
    expect(JSON.stringify(env)).not.toMatch(/sk-secret|sk-other/);
  });
});
