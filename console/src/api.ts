/** The platform's API as the console calls it: same origin, the session cookie, CSRF on changes. */

let csrfToken: string | undefined;

export function setCsrf(token: string | undefined): void {
  csrfToken = token;
}

/** An error the platform answered: its stable code and what it says. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`/api/v1${path}`, {
    method,
    credentials: 'same-origin',
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!res.ok) {
    throw new ApiError(
      res.status,
      String(parsed.code ?? 'ERROR'),
      String(parsed.message ?? res.statusText),
      parsed,
    );
  }
  return parsed as T;
}

/**
 * A streamed answer (`"pages": true`): each JSON line to `onLine` as it arrives. An error answered
 * before the stream began is an ApiError, as from `api`.
 */
export async function apiLines(
  path: string,
  body: unknown,
  onLine: (line: Record<string, unknown>) => void,
): Promise<void> {
  const res = await fetch(`/api/v1${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      accept: 'application/x-ndjson',
      'content-type': 'application/json',
      ...(csrfToken ? { 'x-csrf-token': csrfToken } : {}),
    },
    body: JSON.stringify(body),
  });
  if (!res.ok || !res.body) {
    const parsed = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    throw new ApiError(
      res.status,
      String(parsed.code ?? 'ERROR'),
      String(parsed.message ?? res.statusText),
      parsed,
    );
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const lines = (rest + value).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') onLine(JSON.parse(line) as Record<string, unknown>);
  }
  if (rest.trim() !== '') onLine(JSON.parse(rest) as Record<string, unknown>);
}

export interface User {
  readonly id: string;
  readonly name: string;
  readonly role: 'admin' | 'author' | 'user';
  readonly solutions: readonly string[];
}

export type { ActionInfo, DatasourceInfo, FunctionInfo } from '../../src/platform/console-types.js';
export type { ActionPreview, DatasourcePreview } from '../../src/runtime/previews.js';
