import { StringDecoder } from 'node:string_decoder';
import type { Price, Prices } from '../schema/models.js';

/**
 * Metering a model API response as it streams past (pure: bytes in, usage out). Understood:
 * Anthropic Messages (JSON `usage`; SSE `message_start.message.usage` then `message_delta.usage`,
 * whose counts are cumulative), OpenAI Chat Completions (JSON `usage`; a stream chunk carrying
 * `usage`) and OpenAI Responses (JSON `usage`; SSE `response.completed` → `response.usage`).
 */

/** One response's usage. `input_tokens` counts every input token, cached ones included. */
export interface ResponseUsage {
  readonly model?: string;
  readonly input_tokens: number;
  readonly output_tokens: number;
  /** The part of `input_tokens` read from a prompt cache. */
  readonly cached_input_tokens: number;
}

/** A run's totals, as the proxy reports them and the run record keeps them. */
export interface UsageTotals {
  readonly requests: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  /** Present once a response was priced (models.yml `prices`). */
  readonly usd?: number;
}

export const NO_USAGE: UsageTotals = { requests: 0, input_tokens: 0, output_tokens: 0 };

/** A JSON body larger than this is forwarded but not metered (model answers are far smaller). */
const MAX_JSON_BYTES = 16 * 1024 * 1024;
/** An SSE line longer than this is skipped: no usage event comes near it. */
const MAX_SSE_LINE = 4 * 1024 * 1024;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const modelOf = (v: unknown): { model?: string } => (typeof v === 'string' && v !== '' ? { model: v } : {});

function anthropicUsage(u: Json, model: unknown): ResponseUsage {
  const cacheRead = count(u.cache_read_input_tokens);
  return {
    ...modelOf(model),
    input_tokens: count(u.input_tokens) + count(u.cache_creation_input_tokens) + cacheRead,
    output_tokens: count(u.output_tokens),
    cached_input_tokens: cacheRead,
  };
}

function chatUsage(u: Json, model: unknown): ResponseUsage {
  const details = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  return { ...modelOf(model), input_tokens: count(u.prompt_tokens), output_tokens: count(u.completion_tokens), cached_input_tokens: count(details.cached_tokens) };
}

function responsesUsage(u: Json, model: unknown): ResponseUsage {
  const details = isObject(u.input_tokens_details) ? u.input_tokens_details : {};
  return { ...modelOf(model), input_tokens: count(u.input_tokens), output_tokens: count(u.output_tokens), cached_input_tokens: count(details.cached_tokens) };
}

/** The usage of a whole (non-streamed) JSON answer of any of the three APIs, if it has one. */
export function usageOfJson(body: unknown): ResponseUsage | undefined {
  if (!isObject(body) || !isObject(body.usage)) return undefined;
  const u = body.usage;
  if (body.object === 'chat.completion' || 'prompt_tokens' in u) return chatUsage(u, body.model);
  if (body.object === 'response' || isObject(u.input_tokens_details)) return responsesUsage(u, body.model);
  return anthropicUsage(u, body.model);
}

/**
 * Folds the events of one SSE stream into its usage. Anthropic's `message_delta.usage` holds
 * cumulative counts: each field it carries replaces the one from `message_start`.
 */
export class StreamUsage {
  private anthropic: Json | undefined;
  private anthropicModel: unknown;
  private found: ResponseUsage | undefined;

  observe(event: unknown): void {
    if (!isObject(event)) return;
    if (event.type === 'message_start' && isObject(event.message)) {
      this.anthropicModel = event.message.model;
      if (isObject(event.message.usage)) this.anthropic = { ...event.message.usage };
    } else if (event.type === 'message_delta' && isObject(event.usage)) {
      const delta = Object.fromEntries(Object.entries(event.usage).filter(([, v]) => v !== null && v !== undefined));
      this.anthropic = { ...(this.anthropic ?? {}), ...delta };
    } else if (typeof event.type === 'string' && /^response\.(completed|incomplete|failed)$/.test(event.type) && isObject(event.response) && isObject(event.response.usage)) {
      this.found = responsesUsage(event.response.usage, event.response.model);
    } else if (isObject(event.usage) && (event.object === 'chat.completion.chunk' || 'prompt_tokens' in event.usage)) {
      this.found = chatUsage(event.usage, event.model);
    }
  }

  result(): ResponseUsage | undefined {
    if (this.anthropic) return anthropicUsage(this.anthropic, this.anthropicModel);
    return this.found;
  }
}

/**
 * Server-sent events from bytes in any chunking: a line (or a UTF-8 character) split across
 * chunks is joined; `\n`, `\r\n` and `\r` end lines; a blank line dispatches the event's data.
 */
export class SseParser {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private data: string[] = [];
  private skipping = false;

  constructor(private readonly onData: (data: string) => void) {}

  push(chunk: Buffer | string): void {
    let text = this.pending + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    let start = 0;
    for (;;) {
      const cr = text.indexOf('\r', start);
      const lf = text.indexOf('\n', start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      // A `\r` at the very end may be the first half of `\r\n`: wait for the next chunk.
      if (end === cr && cr === text.length - 1) break;
      this.line(text.slice(start, end));
      start = end + (text[end] === '\r' && text[end + 1] === '\n' ? 2 : 1);
    }
    text = text.slice(start);
    if (text.length > MAX_SSE_LINE) {
      this.skipping = true;
      text = '';
    }
    this.pending = text;
  }

  end(): void {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (rest !== '') this.line(rest);
    this.line('');
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0 && !this.skipping) this.onData(this.data.join('\n'));
      this.data = [];
      this.skipping = false;
      return;
    }
    if (line.startsWith('data:')) this.data.push(line.slice(line[5] === ' ' ? 6 : 5));
  }
}

/** Meters one response body: feed it every chunk as it passes, then ask for the result. */
export interface UsageMeter {
  push(chunk: Buffer): void;
  end(): ResponseUsage | undefined;
}

/** A meter for a response of this content type (SSE or JSON; anything else yields nothing). */
export function meterFor(contentType: string | undefined): UsageMeter {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/event-stream') {
    const usage = new StreamUsage();
    const parser = new SseParser((data) => {
      if (data === '[DONE]') return;
      try {
        usage.observe(JSON.parse(data));
      } catch {
        // Not JSON: nothing to meter in it.
      }
    });
    return {
      push: (chunk) => parser.push(chunk),
      end: () => (parser.end(), usage.result()),
    };
  }
  if (type === 'application/json' || type.endsWith('+json')) {
    const chunks: Buffer[] = [];
    let size = 0;
    return {
      push: (chunk) => {
        size += chunk.length;
        if (size <= MAX_JSON_BYTES) chunks.push(chunk);
      },
      end: () => {
        if (size > MAX_JSON_BYTES) return undefined;
        try {
          return usageOfJson(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          return undefined;
        }
      },
    };
  }
  return { push: () => undefined, end: () => undefined };
}

/**
 * The price of a model id: its exact row, else the longest row that the id extends with `-…`
 * (a dated snapshot `gpt-4o-2024-08-06` of `gpt-4o`) or prefixes with `provider/`.
 */
export function priceOf(prices: Prices, model: string | undefined): Price | undefined {
  if (model === undefined) return undefined;
  if (prices[model]) return prices[model];
  const bare = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  if (prices[bare]) return prices[bare];
  const candidates = Object.keys(prices).filter((id) => bare.startsWith(`${id}-`));
  if (candidates.length === 0) return undefined;
  return prices[candidates.sort((a, b) => b.length - a.length)[0]!];
}

/** USD of one response, or undefined when its model has no price. */
export function usdOf(usage: ResponseUsage, prices: Prices): number | undefined {
  const price = priceOf(prices, usage.model);
  if (!price) return undefined;
  const cached = Math.min(usage.cached_input_tokens, usage.input_tokens);
  return ((usage.input_tokens - cached) * price.input + cached * (price.cached_input ?? price.input) + usage.output_tokens * price.output) / 1_000_000;
}

/** Totals after one more response (`usage` undefined: a request with nothing to meter). */
export function addUsage(totals: UsageTotals, usage: ResponseUsage | undefined, usd: number | undefined): UsageTotals {
  const next = {
    requests: totals.requests + 1,
    input_tokens: totals.input_tokens + (usage?.input_tokens ?? 0),
    output_tokens: totals.output_tokens + (usage?.output_tokens ?? 0),
  };
  const spent = usd === undefined ? totals.usd : (totals.usd ?? 0) + usd;
  return spent === undefined ? next : { ...next, usd: spent };
}
