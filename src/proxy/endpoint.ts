import type { Harness } from '../schema/harness.js';

/**
 * Where a run's credential proxy forwards, and what the worker sees instead of the keys (pure):
 * the worker's `urlEnv` holds the proxy's URL, each private key its placeholder; the proxy sends
 * `upstream + path` with each placeholder replaced by the real key.
 */
export interface Endpoint {
  /** The environment variable the worker reads its model base URL from. */
  readonly urlEnv: string;
  /** The real base URL (http or https, no trailing slash): requests go to `upstream + path`. */
  readonly upstream: string;
  /** Private key name → the placeholder the worker gets in its place. */
  readonly placeholders: ReadonlyMap<string, string>;
}

export type EndpointChoice = { ok: true; endpoint: Endpoint } | { ok: false; reason: string };

/** Base-URL variables the shipped harnesses' CLIs read, in the order they are looked for. */
const URL_ENVS = ['ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL', 'LOCAL_MODEL_URL'] as const;

/** A provider's own endpoint, by the variable that would point elsewhere. */
const DEFAULT_UPSTREAM: Readonly<Record<string, string>> = {
  ANTHROPIC_BASE_URL: 'https://api.anthropic.com',
  OPENAI_BASE_URL: 'https://api.openai.com/v1',
};

/** Private key name → the base-URL variable of its provider. */
const URL_ENV_OF_KEY: Readonly<Record<string, string>> = {
  ANTHROPIC_API_KEY: 'ANTHROPIC_BASE_URL',
  OPENAI_API_KEY: 'OPENAI_BASE_URL',
};

export const PLACEHOLDER_PREFIX = 'board-placeholder-';

export function placeholderOf(keyName: string): string {
  return `${PLACEHOLDER_PREFIX}${keyName}`;
}

/**
 * The endpoint of a harness: `endpoint.url_env` / `endpoint.upstream` when declared; otherwise
 * the first base-URL variable its `environment` sets (its value is the upstream), else the one
 * its private keys imply, pointing at the provider's own API.
 */
export function resolveEndpoint(harness: Pick<Harness, 'environment' | 'environment_from_private' | 'endpoint'>): EndpointChoice {
  const env = harness.environment ?? {};
  const keys = harness.environment_from_private ?? [];
  const urlEnv =
    harness.endpoint?.url_env ??
    URL_ENVS.find((name) => env[name] !== undefined) ??
    keys.map((k) => URL_ENV_OF_KEY[k]).find((name): name is string => name !== undefined);
  if (urlEnv === undefined) {
    return { ok: false, reason: `no model endpoint: set \`endpoint: { url_env, upstream }\`, or one of ${URL_ENVS.join(', ')} in \`environment\`` };
  }
  const declared = harness.endpoint?.upstream ?? env[urlEnv] ?? DEFAULT_UPSTREAM[urlEnv];
  if (declared === undefined) {
    return { ok: false, reason: `no upstream for ${urlEnv}: set \`endpoint.upstream\` or ${urlEnv} in \`environment\`` };
  }
  const normalized = normalizeUpstream(declared);
  if (typeof normalized !== 'string') return { ok: false, reason: `${harness.endpoint?.upstream !== undefined ? '`endpoint.upstream`' : urlEnv}: ${normalized.reason}` };
  // The local-model worker drops a trailing /v1 from LOCAL_MODEL_URL and asks for /v1/…: so does its upstream.
  const upstream = urlEnv === 'LOCAL_MODEL_URL' ? normalized.replace(/\/v1$/, '') : normalized;
  const placeholders = new Map(keys.map((k) => [k, placeholderOf(k)] as const));
  return { ok: true, endpoint: { urlEnv, upstream, placeholders } };
}

/** An http(s) URL without credentials, query or fragment, and without its trailing slash. */
export function normalizeUpstream(text: string): string | { reason: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { reason: `"${text}" is not a URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { reason: `"${text}" is not an http:// or https:// URL` };
  if (url.username !== '' || url.password !== '') return { reason: 'a URL with credentials in it: put keys in the private env file' };
  if (url.search !== '' || url.hash !== '') return { reason: `"${text}" has a query or fragment: give the base URL only` };
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Placeholder → real value, for the keys the private env holds (a missing key is left out). */
export function secretsFor(placeholders: ReadonlyMap<string, string>, privateEnv: ReadonlyMap<string, string>): Map<string, string> {
  const secrets = new Map<string, string>();
  for (const [key, placeholder] of placeholders) {
    const value = privateEnv.get(key);
    if (value !== undefined && value !== '') secrets.set(placeholder, value);
  }
  return secrets;
}
