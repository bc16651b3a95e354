import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/**
 * What the credential proxy sends upstream (pure): the path under the upstream's base, and the
 * headers with hop-by-hop ones dropped and placeholders swapped for keys.
 */

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1, plus old proxy ones). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Header names a key may travel in; a placeholder elsewhere stays a placeholder (never reflected back). */
const CREDENTIAL_HEADER = /^(authorization|x-api-key|api-key)$|key|token|auth|secret/i;

export type TargetPath = { ok: true; path: string } | { ok: false; reason: string };

/**
 * `basePath + requestTarget`, by concatenation: never URL resolution, so no request line can name
 * another host. Refused: anything but origin-form (`/…`: absolute URIs, `host:port`, `*`), a
 * leading `//` (an authority to every URL resolver on the way), `.`/`..` segments (plain or
 * percent-encoded) and backslashes.
 */
export function targetPath(basePath: string, requestTarget: string | undefined): TargetPath {
  const target = requestTarget ?? '';
  if (!target.startsWith('/')) return { ok: false, reason: 'the proxy only forwards paths (origin-form request targets) to its upstream' };
  if (target.startsWith('//')) return { ok: false, reason: 'a path starting with // is refused' };
  const pathPart = target.split('?', 1)[0]!;
  if (pathPart.includes('\\') || /%5c/i.test(pathPart)) return { ok: false, reason: 'a backslash in the path is refused' };
  const segments = pathPart.split('/').map((s) => s.replace(/%2e/gi, '.'));
  if (segments.some((s) => s === '.' || s === '..')) return { ok: false, reason: 'a `.` or `..` segment in the path is refused' };
  if (/%2f/i.test(pathPart)) return { ok: false, reason: 'an encoded / in the path is refused' };
  return { ok: true, path: `${basePath.replace(/\/+$/, '')}${target}` };
}

/** Replace each placeholder by its key in a header value. */
function swap(value: string, secrets: ReadonlyMap<string, string>): string {
  let out = value;
  for (const [placeholder, key] of secrets) if (out.includes(placeholder)) out = out.split(placeholder).join(key);
  return out;
}

/**
 * The request headers for upstream: hop-by-hop headers (and any the `Connection` header names)
 * dropped, `Host` set to the upstream's, identity encoding asked for (so usage can be read), and
 * every placeholder in a credential header (Authorization, X-Api-Key, …) replaced by its key.
 */
export function upstreamHeaders(headers: IncomingHttpHeaders, upstreamHost: string, secrets: ReadonlyMap<string, string>): OutgoingHttpHeaders {
  const named = connectionNamed(headers);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name) || name === 'host' || name === 'accept-encoding' || name === 'expect') continue;
    if (!CREDENTIAL_HEADER.test(name)) out[name] = value;
    else out[name] = Array.isArray(value) ? value.map((v) => swap(v, secrets)) : swap(value, secrets);
  }
  out.host = upstreamHost;
  out['accept-encoding'] = 'identity';
  return out;
}

/** The headers a `Connection` header names: hop-by-hop for this message alone (RFC 9110 §7.6.1). */
function connectionNamed(headers: IncomingHttpHeaders): Set<string> {
  return new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** The response headers for the client: upstream's, less hop-by-hop ones. */
export function clientHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = connectionNamed(headers);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** `host:port` of a CONNECT request, lower-cased, when it is one of `allowed` (same form). */
export function connectAllowed(authority: string | undefined, allowed: readonly string[]): { host: string; port: number } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})$/i.exec(authority ?? '');
  if (!m) return undefined;
  const host = m[1]!.toLowerCase();
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  if (!allowed.some((a) => a.toLowerCase() === `${host}:${port}`)) return undefined;
  return { host: host.replace(/^\[|\]$/g, ''), port };
}
