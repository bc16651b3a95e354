import { describe, expect, it } from 'vitest';
import { clientHeaders, connectAllowed, targetPath, upstreamHeaders } from '../../src/proxy/forward.js';

describe('targetPath: only paths under the upstream, by concatenation', () => {
  it.each([
    ['/v1', '/responses', '/v1/responses'],
    ['/v1/', '/chat/completions?x=1', '/v1/chat/completions?x=1'],
    ['/', '/v1/messages', '/v1/messages'],
    ['', '/v1/messages?beta=true', '/v1/messages?beta=true'],
    ['/v1', '/a..b/c.d', '/v1/a..b/c.d'],
    ['/v1', '/x?next=../../y', '/v1/x?next=../../y'],
  ])('%s + %s = %s', (base, target, path) => {
    expect(targetPath(base, target)).toEqual({ ok: true, path });
  });

  it.each([
    'http://evil.example/v1/messages',
    'https://evil.example/',
    'evil.example:443',
    '*',
    '',
    '//evil.example/v1/messages',
    '/../evil',
    '/v1/../../x',
    '/%2e%2e/x',
    '/%2E./x',
    '/./x',
    '/a\\b',
    '/a%5cb',
    '/a%2fb',
  ])('refuses %j', (target) => {
    expect(targetPath('/v1', target).ok).toBe(false);
  });
});

describe('upstreamHeaders', () => {
  const secrets = new Map([['board-placeholder-ANTHROPIC_API_KEY', 'sk-real']]);

  it('replaces placeholders in credential headers only, sets Host, asks for identity, drops hop-by-hop', () => {
    const out = upstreamHeaders(
      {
        host: 'evil.example',
        'x-api-key': 'board-placeholder-ANTHROPIC_API_KEY',
        authorization: 'Bearer board-placeholder-ANTHROPIC_API_KEY',
        'x-echo-me': 'board-placeholder-ANTHROPIC_API_KEY',
        connection: 'keep-alive, x-drop',
        'x-drop': '1',
        'keep-alive': 'timeout=5',
        'proxy-authorization': 'Basic abc',
        'transfer-encoding': 'chunked',
        'accept-encoding': 'gzip, br',
        expect: '100-continue',
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
      },
      'api.anthropic.com',
      secrets,
    );
    expect(out).toEqual({
      host: 'api.anthropic.com',
      'x-api-key': 'sk-real',
      authorization: 'Bearer sk-real',
      'x-echo-me': 'board-placeholder-ANTHROPIC_API_KEY',
      'accept-encoding': 'identity',
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
    });
  });

  it('clientHeaders drops hop-by-hop headers and those Connection names', () => {
    expect(clientHeaders({ connection: 'close, x-a', 'x-a': '1', 'transfer-encoding': 'chunked', 'content-type': 'text/event-stream', 'request-id': 'r' })).toEqual({ 'content-type': 'text/event-stream', 'request-id': 'r' });
  });
});

describe('connectAllowed', () => {
  const allowed = ['Example.com:443', '[::1]:8443'];
  it.each([
    ['example.com:443', { host: 'example.com', port: 443 }],
    ['EXAMPLE.COM:443', { host: 'example.com', port: 443 }],
    ['[::1]:8443', { host: '::1', port: 8443 }],
    ['example.com:80', undefined],
    ['evil.example:443', undefined],
    ['example.com', undefined],
    ['example.com:443/x', undefined],
    ['user@example.com:443', undefined],
    [undefined, undefined],
  ])('%s', (authority, result) => {
    expect(connectAllowed(authority, allowed)).toEqual(result);
  });
});
