import type { FunctionDefinition } from '../definition/schema/index.js';
import type { Solution } from '../definition/solution.js';
import { isExpression } from '../expression/source.js';
import { originOf } from '../http/build-request.js';
import { parseUrlTemplate } from '../http/url-template.js';
import { parametersPlan, planOf } from './plan.js';
import { customSettingRead } from './setting-default.js';

/**
 * `https://api.example.com:8443` from what a person writes (`https://api.example.com:8443/`, any
 * case): scheme, host and port only. Undefined for anything else (a path, a query, a user name,
 * another scheme), so a typo never binds a credential to somewhere unexpected.
 */
export function normaliseOrigin(text: string): string | undefined {
  const url = URL.parse(text.trim());
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    return undefined;
  // A host name or an IP: `*` and the like would read as a wildcard, which origins have none of.
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/.test(url.hostname)) return undefined;
  return url.origin;
}

/**
 * Where the functions that name credential `key` send their requests, as far as their definitions
 * say: a literal url, or one whose address placeholders take fixed values or values from
 * `settings.custom` (as the solution's settings give them). `unresolved` names the functions whose
 * origin depends on something else (a caller's value, a url expression): those need the origins
 * given.
 */
export function originsNamingCredential(
  solution: Solution,
  key: string,
): { origins: string[]; unresolved: string[] } {
  const custom = solution.settings?.definition?.settings?.custom ?? {};
  const origins = new Set<string>();
  const unresolved: string[] = [];
  for (const [name, file] of solution.functions) {
    const definition = file.definition;
    if (!definition || !namesCredential(definition, key)) continue;
    const origin = functionOrigin(definition, custom);
    if (origin === undefined) unresolved.push(name);
    else origins.add(origin);
  }
  return { origins: [...origins].sort(), unresolved };
}

function namesCredential(definition: FunctionDefinition, key: string): boolean {
  const named = (list: ReturnType<typeof parametersPlan>['list']) =>
    list.some((p) => p.credential !== undefined && String(p.definition.value) === key);
  return (
    named(planOf(definition).parameters.list) ||
    named(parametersPlan(definition.continuation?.parameters).list)
  );
}

/** The origin of a function's url when its definition fixes it; undefined when a caller could choose. */
export function functionOrigin(
  definition: FunctionDefinition,
  custom: Readonly<Record<string, unknown>>,
): string | undefined {
  if (isExpression(definition.url)) return undefined;
  const template = parseUrlTemplate(definition.url);
  const values: Record<string, unknown> = {};
  for (const placeholder of template.placeholders) {
    if (placeholder.part !== 'base') continue;
    const value = definition.parameters?.[placeholder.name]?.value;
    const setting = customSettingRead(value);
    if (setting !== undefined) values[placeholder.name] = custom[setting];
    else if (value !== undefined && !isExpression(value)) values[placeholder.name] = value;
    // Otherwise the caller's value fills it: the origin is the caller's to choose.
  }
  return originOf(definition.url, values);
}
