import { parseUrlTemplate } from '../../src/http/url-template.js';
import type { FunctionInfo } from './api.js';

type Parameter = FunctionInfo['parameters'][number];

/**
 * A parameter's default as the console can show it: a fixed `value` as written, an expression's
 * value when the platform worked it out (`resolved`, a solution setting), else nothing. A
 * credential's `value` is its key, never a default to show or to put in a url.
 */
export function shownDefault(p: Parameter): string | undefined {
  if (p.credential || p.value === undefined || p.value === null) return undefined;
  if (typeof p.value === 'string' && p.value.startsWith('=')) return textOf(p.resolved);
  return textOf(p.value);
}

/** The expression a default is worked out from at run time, when the console cannot show its value. */
export function defaultExpression(p: Parameter): string | undefined {
  if (p.credential || typeof p.value !== 'string' || !p.value.startsWith('=')) return undefined;
  return p.resolved === undefined ? p.value : undefined;
}

/**
 * The url as the platform will send it, as far as the console knows the values: `values` (what the
 * form holds) over the defaults; a placeholder without one stays `{name}`. Filled as the runtime
 * fills it (build-request.ts): the address part as written, path values percent-encoded. The query
 * string is left as written (the query parameters are the platform's to add).
 */
export function urlAsSent(fn: FunctionInfo, values: Readonly<Record<string, string>> = {}): string {
  if (fn.url.startsWith('=')) return fn.url;
  const known: Record<string, string> = {};
  for (const p of fn.parameters) {
    if (p.location !== 'path' || p.credential) continue;
    const value = values[p.name] !== undefined && values[p.name] !== '' ? values[p.name] : shownDefault(p);
    if (value !== undefined) known[p.name] = value;
  }
  const template = parseUrlTemplate(fn.url);
  let url = '';
  let at = 0;
  for (const placeholder of template.placeholders) {
    const value = Object.hasOwn(known, placeholder.name) ? known[placeholder.name] : undefined;
    url += fn.url.slice(at, placeholder.index);
    const written = `{${placeholder.name}}`;
    url +=
      value === undefined || placeholder.part === 'query'
        ? written
        : placeholder.part === 'base'
          ? value
          : encodeURIComponent(value);
    at = placeholder.index + written.length;
  }
  return url + fn.url.slice(at);
}

function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
