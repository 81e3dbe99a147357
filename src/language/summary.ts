import { relative } from 'node:path';
import {
  CREDENTIAL_NAME,
  credentialKind,
  isCredentialParameterName,
  looksLikeSecret,
} from '../definition/credential-params.js';
import type { ParameterDefinition } from '../definition/schema/index.js';
import type { Solution, SourceFile } from '../definition/solution.js';
import { isExpression } from '../expression/source.js';
import { MASK } from '../http/sensitive.js';

/**
 * A function as hover shows it on its name: method and url (credentials masked, as the CLI's traces
 * mask them), then its parameters (name, type, where, required, default) as a Markdown table.
 */
export function functionSummary(file: SourceFile<'function'>, root: string): string {
  const d = (file.data ?? {}) as {
    method?: unknown;
    url?: unknown;
    parameters?: Record<string, Record<string, unknown> | null>;
  };
  const call = [d.method, typeof d.url === 'string' ? maskedUrl(d.url) : undefined]
    .filter((v) => typeof v === 'string')
    .join(' ');
  const out = [`**function \`${file.name}\`**${call ? ` \`${call}\`` : ''}`, ''];
  const parameters = Object.entries(d.parameters ?? {});
  if (parameters.length > 0) {
    out.push('| parameter | type | where | required | default |', '|---|---|---|---|---|');
    for (const [name, p] of parameters) {
      const cell = (v: unknown) =>
        typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number' ? String(v) : '';
      out.push(
        `| \`${name}\` | ${cell(p?.type)} | ${cell(p?.location ?? (p && credentialKind(name, p as ParameterDefinition) ? 'header' : undefined))} | ${p?.required === true ? 'yes' : ''} | ${defaultOf(name, p?.value, p !== undefined && credentialKind(name, p as ParameterDefinition) !== undefined)} |`,
      );
    }
  } else out.push('No parameters.');
  out.push('', `\`${relative(root, file.path)}\``);
  return out.join('\n');
}

/** An action or a datasource in one line: what it is, and its file. */
export function fileSummary(file: SourceFile, solution: Solution): string {
  const data = (file.data ?? {}) as Record<string, unknown>;
  const where = `\`${relative(solution.root, file.path)}\``;
  if (file.kind === 'action') {
    const action = (('action' in data ? data.action : data) ?? {}) as { type?: unknown };
    const parameters = Object.keys((data.parameters as object | undefined) ?? {});
    const takes = parameters.length > 0 ? `, parameters ${parameters.map((p) => `\`${p}\``).join(', ')}` : '';
    return `**action \`${file.name}\`**: \`${String(action.type ?? '?')}\`${takes} — ${where}`;
  }
  const options = (data.options ?? {}) as { provider?: unknown; entities?: unknown };
  const entities = Array.isArray(options.entities)
    ? options.entities
        .map((e) => (typeof e === 'string' ? e : (e as { entity?: unknown } | null)?.entity))
        .filter(Boolean)
    : [];
  const what = [
    options.provider,
    entities.length > 0 ? `tables ${entities.map((e) => `\`${String(e)}\``).join(', ')}` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  return `**datasource \`${file.name}\`**: \`${String(data.type ?? '?')}\`${what ? `, ${what}` : ''} — ${where}`;
}

/**
 * A url as written in a file, with what may be a credential masked: a password in it, and the value
 * of a query parameter whose name says credential (`api_key=...`, the names the CLI masks headers
 * by). `{name}` placeholders and expressions are shown as written.
 */
export function maskedUrl(url: string): string {
  if (isExpression(url)) return url;
  const withoutPassword = maskedUserinfo(url);
  const query = withoutPassword.indexOf('?');
  if (query === -1) return withoutPassword;
  const hash = withoutPassword.indexOf('#', query);
  const end = hash === -1 ? withoutPassword.length : hash;
  const pairs = withoutPassword
    .slice(query + 1, end)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const name = decodeSafely(pair.slice(0, eq));
      const value = pair.slice(eq + 1);
      return CREDENTIAL_NAME.test(name) && value !== '' && !/^\{[^}]*\}$/.test(value)
        ? `${pair.slice(0, eq)}=${MASK}`
        : pair;
    });
  return `${withoutPassword.slice(0, query + 1)}${pairs.join('&')}${withoutPassword.slice(end)}`;
}

/**
 * A url's userinfo masked: everything before the last `@` of the authority (`user:***@`, or `***@` for
 * a token alone, as in `https://ghp_...@host`).
 */
function maskedUserinfo(url: string): string {
  const scheme = /^[a-z][\w+.-]*:\/\//i.exec(url);
  if (!scheme) return url;
  const start = scheme[0].length;
  let end = url.length;
  for (const c of ['/', '?', '#']) {
    const at = url.indexOf(c, start);
    if (at !== -1 && at < end) end = at;
  }
  const at = url.lastIndexOf('@', end - 1);
  if (at < start) return url;
  const userinfo = url.slice(start, at);
  const colon = userinfo.indexOf(':');
  const shown = colon === -1 ? MASK : `${userinfo.slice(0, colon)}:${MASK}`;
  return `${url.slice(0, start)}${shown}${url.slice(at)}`;
}

/** A parameter's default as shown: a value that looks like a secret (a literal credential) is masked. */
function defaultOf(name: string, value: unknown, isKey = false): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (typeof value === 'string' && looksLikeSecret(value) && !isExpression(value)) return MASK;
  // a literal under a credential name (`api_key: {value: hunter2}`) is a credential, however it looks
  if (typeof value === 'string' && !isKey && isCredentialParameterName(name) && !isExpression(value))
    return MASK;
  if (typeof value === 'string' && CREDENTIAL_NAME.test(name) && /^(bearer|basic|token)\s+\S/i.test(value))
    return MASK;
  return `\`${text.replaceAll('|', '\\|').replaceAll('`', "'")}\``;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
