import { describe, expect, it } from 'vitest';
import { addUsage, meterFor, NO_USAGE, priceOf, SseParser, usageOfJson, usdOf, type ResponseUsage } from '../../src/proxy/usage.js';
import { modelPricesSchema, modelsSchema } from '../../src/schema/models.js';

const sse = (events: [string | null, unknown][]) => events.map(([e, d]) => `${e ? `event: ${e}\n` : ''}data: ${typeof d === 'string' ? d : JSON.stringify(d)}\n\n`).join('');

/** Feed `text` to a meter in pieces of `size` bytes (1 = every byte its own chunk). */
function meter(contentType: string, text: string, size: number): ResponseUsage | undefined {
  const m = meterFor(contentType);
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) m.push(bytes.subarray(i, i + size));
  return m.end();
}

const anthropicStream = sse([
  ['message_start', { type: 'message_start', message: { id: 'm', model: 'claude-x', usage: { input_tokens: 12, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: 1 } } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'héllo ✓' } }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 40 } }],
  ['message_delta', { type: 'message_delta', delta: {}, usage: { output_tokens: 57 } }],
  ['message_stop', { type: 'message_stop' }],
]);

const chatStream = sse([
  [null, { object: 'chat.completion.chunk', model: 'gpt-x', choices: [{ delta: { content: 'hi' } }], usage: null }],
  [null, { object: 'chat.completion.chunk', model: 'gpt-x', choices: [], usage: { prompt_tokens: 30, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 10 } } }],
  [null, '[DONE]'],
]);

const responsesStream = sse([
  ['response.created', { type: 'response.created', response: { model: 'gpt-r', usage: null } }],
  ['response.output_text.delta', { type: 'response.output_text.delta', delta: 'x' }],
  ['response.completed', { type: 'response.completed', response: { model: 'gpt-r', usage: { input_tokens: 50, output_tokens: 9, input_tokens_details: { cached_tokens: 20 } } } }],
]);

describe('usage of streamed answers, in any chunking', () => {
  it.each([1, 2, 3, 7, 64, 1 << 20])('chunks of %i bytes', (size) => {
    // Anthropic: message_delta counts are cumulative (the last wins); cache tokens are input.
    expect(meter('text/event-stream; charset=utf-8', anthropicStream, size)).toEqual({ model: 'claude-x', input_tokens: 1112, output_tokens: 57, cached_input_tokens: 1000 });
    expect(meter('text/event-stream', chatStream, size)).toEqual({ model: 'gpt-x', input_tokens: 30, output_tokens: 7, cached_input_tokens: 10 });
    expect(meter('text/event-stream', responsesStream, size)).toEqual({ model: 'gpt-r', input_tokens: 50, output_tokens: 9, cached_input_tokens: 20 });
  });

  it('reads CRLF and CR line ends, a CRLF split between chunks, and multi-line data', () => {
    const seen: string[] = [];
    const parser = new SseParser((d) => seen.push(d));
    parser.push('data: a\r');
    parser.push('\ndata: b\r\n\r');
    parser.push('\ndata:c\rdata: d\r\r: comment\n\nevent: x\ndata: e');
    parser.end();
    expect(seen).toEqual(['a\nb', 'c\nd', 'e']);
  });

  it('a stream without usage, or not JSON, yields nothing', () => {
    expect(meter('text/event-stream', sse([[null, 'not json'], [null, { type: 'ping' }]]), 5)).toBeUndefined();
    expect(meter('text/plain', 'usage', 5)).toBeUndefined();
  });
});

describe('usage of JSON answers', () => {
  it.each([
    ['Anthropic Messages', { type: 'message', model: 'claude-x', usage: { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 2 } }, { model: 'claude-x', input_tokens: 5, output_tokens: 4, cached_input_tokens: 2 }],
    ['Chat Completions', { object: 'chat.completion', model: 'gpt-x', usage: { prompt_tokens: 8, completion_tokens: 2, total_tokens: 10 } }, { model: 'gpt-x', input_tokens: 8, output_tokens: 2, cached_input_tokens: 0 }],
    ['Responses', { object: 'response', model: 'gpt-r', usage: { input_tokens: 6, output_tokens: 1, input_tokens_details: { cached_tokens: 4 } } }, { model: 'gpt-r', input_tokens: 6, output_tokens: 1, cached_input_tokens: 4 }],
  ])('%s', (_name, body, usage) => {
    expect(usageOfJson(body)).toEqual(usage);
    expect(meter('application/json', JSON.stringify(body), 3)).toEqual(usage);
  });

  it('an error body or a body without usage yields nothing', () => {
    expect(meter('application/json', '{"type":"error","error":{"type":"overloaded_error"}}', 4)).toBeUndefined();
    expect(meter('application/json', '{"truncated', 4)).toBeUndefined();
  });
});

describe('prices', () => {
  const prices = modelPricesSchema.parse({ claude: { standard: 'c' }, prices: { 'gpt-4o': { input: 2.5, output: 10, cached_input: 1.25 }, 'gpt-4o-mini': { input: 0.15, output: 0.6 }, 'claude-x': { input: 3, output: 15 } } });

  it('matches exact ids, dated snapshots (longest row first) and provider/ prefixes', () => {
    expect(priceOf(prices, 'gpt-4o')).toMatchObject({ input: 2.5 });
    expect(priceOf(prices, 'gpt-4o-2024-08-06')).toMatchObject({ input: 2.5 });
    expect(priceOf(prices, 'gpt-4o-mini-2024-07-18')).toMatchObject({ input: 0.15 });
    expect(priceOf(prices, 'anthropic/claude-x')).toMatchObject({ input: 3 });
    expect(priceOf(prices, 'gpt-4')).toBeUndefined();
    expect(priceOf(prices, undefined)).toBeUndefined();
  });

  it('prices cached input at its own rate, unpriced models at nothing', () => {
    expect(usdOf({ model: 'gpt-4o', input_tokens: 1_000_000, cached_input_tokens: 400_000, output_tokens: 100_000 }, prices)).toBeCloseTo(0.6 * 2.5 + 0.4 * 1.25 + 0.1 * 10, 10);
    expect(usdOf({ model: 'claude-x', input_tokens: 1000, cached_input_tokens: 0, output_tokens: 1000 }, prices)).toBeCloseTo(0.018, 10);
    expect(usdOf({ model: 'other', input_tokens: 1000, cached_input_tokens: 0, output_tokens: 1000 }, prices)).toBeUndefined();
  });

  it('totals count requests, tokens, and usd once something was priced', () => {
    let t = addUsage(NO_USAGE, undefined, undefined);
    expect(t).toEqual({ requests: 1, input_tokens: 0, output_tokens: 0 });
    t = addUsage(t, { input_tokens: 10, output_tokens: 5, cached_input_tokens: 0 }, 0.25);
    t = addUsage(t, { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0 }, undefined);
    expect(t).toEqual({ requests: 3, input_tokens: 11, output_tokens: 6, usd: 0.25 });
  });

  it('models.yml: `prices` is not a harness row, and is strict', () => {
    const file = { 'claude-code': { standard: 'm' }, prices: { m: { input: 1, output: 2 } } };
    expect(Object.keys(modelsSchema.parse(file))).toEqual(['claude-code']);
    expect(modelPricesSchema.parse(file)).toEqual({ m: { input: 1, output: 2 } });
    expect(modelsSchema.safeParse({ prices: { m: { input: 1 } } }).success).toBe(false);
    expect(modelsSchema.safeParse({ prices: { m: { input: 1, output: 2, typo: 3 } } }).success).toBe(false);
  });
});
