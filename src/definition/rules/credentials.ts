import { eachAstNode } from '../../expression/ast.js';
import { analyse } from '../../expression/compile.js';
import { expressionSource, isExpression } from '../../expression/source.js';
import { parseUrlTemplate } from '../../http/url-template.js';
import {
  CREDENTIAL_NAME,
  credentialKind,
  isCredentialParameterName,
  looksLikeSecret,
} from '../credential-params.js';
import { TODO } from '../file-templates.js';
import type { FunctionRule } from './reporter.js';

/**
 * Spec 5 rule 2: credentials belong in the credentials store, not in the file. Messages name the place
 * and never repeat the value.
 */
export const literalCredential: FunctionRule = (file, r) => {
  const { parameters = {}, url } = file.definition;
  for (const [name, parameter] of Object.entries(parameters)) {
    const value = parameter.value;
    if (typeof value !== 'string' || isExpression(value)) continue;
    const kind = credentialKind(name, parameter);
    if (
      kind === undefined &&
      name.toLowerCase() === 'authorization' &&
      /^(bearer|basic|token)\s+\S/i.test(value)
    ) {
      r.report(
        'LITERAL_CREDENTIAL',
        `parameter '${name}' holds a literal ${value.split(/\s/)[0]} credential; store it in the credentials store (a static token: restfn credentials set KEY --kind bearer) and give this parameter 'type: secret' and the key as value (an OAuth token: an 'accessToken' parameter of type <provider>.oauth)`,
        ['parameters', name, 'value'],
      );
    } else if (
      kind === undefined ? CREDENTIAL_NAME.test(name) && looksLikeSecret(value) : looksLikeSecret(value)
    ) {
      const fix =
        kind === undefined
          ? "give it 'type: secret' and a credential key as value"
          : 'its value must be the key of a stored credential, not the credential itself';
      r.report('LITERAL_CREDENTIAL', `parameter '${name}' looks like it holds a credential; ${fix}`, [
        'parameters',
        name,
        'value',
      ]);
    } else if (
      kind === undefined &&
      value.trim() !== '' &&
      value !== TODO &&
      ['header', 'query'].includes(parameter.location ?? 'header') &&
      isCredentialParameterName(name)
    ) {
      // Named as a credential and sent as written: whatever the value looks like, it is the secret
      // itself (with `type: secret` the value is a stored credential's key, checked above).
      r.report(
        'LITERAL_CREDENTIAL',
        `parameter '${name}' is a credential by its name, and its value is written in the file and sent as it is; store the value (restfn credentials set) and give this parameter 'type: secret' and the credential's key as value`,
        ['parameters', name, 'value'],
      );
    }
  }
  if (!isExpression(url)) {
    const query = url.indexOf('?');
    if (query !== -1) {
      for (const [name, value] of new URLSearchParams(url.slice(query + 1))) {
        if (CREDENTIAL_NAME.test(name) && value.length > 0) {
          r.report(
            'LITERAL_CREDENTIAL',
            `url query '${name}' looks like a credential; use a 'type: secret' parameter with 'location: query'`,
            ['url'],
          );
        }
      }
    }
  }
};

/** Spec 5: with `useLocalCall`, functions needing secrets or other non-OAuth credentials do not run. */
export const localCallCredential: FunctionRule = (file, r) => {
  if (file.definition.useLocalCall !== true) return;
  for (const [name, parameter] of Object.entries(file.definition.parameters ?? {})) {
    if (credentialKind(name, parameter) === 'secret') {
      r.report(
        'LOCAL_CALL_CREDENTIAL',
        `parameter '${name}' is a secret, which a local call cannot use (only OAuth works on the device); remove useLocalCall or use an OAuth credential`,
        ['parameters', name, 'type'],
      );
    }
  }
};

/**
 * A credential goes where the url points; a url whose scheme, host or port a caller's value fills
 * lets the caller choose (the credential's origins still refuse other places at run time: this says
 * so before then).
 */
export const credentialAddress: FunctionRule = (file, r) => {
  const { parameters = {}, url } = file.definition;
  const credentials = Object.entries(parameters).filter(([name, p]) => credentialKind(name, p) !== undefined);
  if (credentials.length === 0) return;
  const fromCaller = isExpression(url)
    ? /@(?:ctx)?\.parameters\b/.test(url)
      ? 'its value'
      : undefined
    : parseUrlTemplate(url)
        .placeholders.filter((p) => p.part === 'base')
        .map((p) => p.name)
        .find((name) => {
          const value = parameters[name]?.value;
          return value === undefined || (isExpression(value) && !SETTING.test(String(value)));
        });
  if (fromCaller === undefined) return;
  r.report(
    'CREDENTIAL_URL_FROM_CALLER',
    `the address (scheme, host or port) comes from ${fromCaller === 'its value' ? "the caller's parameters" : `parameter '${fromCaller}', which a caller fills`}, and credential '${String(credentials[0]![1].value)}' goes with it: fix the address in the url (or in settings.custom), so that only the credential's origins can receive it`,
    ['url'],
  );
};

const SETTING = /^=\s*@(?:ctx)?\.solution\.settings\.custom\./;

/** Functions whose result is the reference as it was (or says nothing of it): no reshaping. */
const KEEPS_REFERENCE = new Set(['string', 'trim', 'exists', 'type', 'boolean', 'not', 'count']);

/**
 * A body credential reaches the inputTransform as a reference that only the bytes sent turn into
 * the value: a transform that reshapes it (`$split`, `$substring`, `$base64encode`, a script)
 * sends the reshaped reference, never the secret. Said here, so that it is not found at the
 * service's 401.
 */
export const reshapedCredential: FunctionRule = (file, r) => {
  const { parameters = {}, inputTransform } = file.definition;
  if (inputTransform === undefined) return;
  const names = new Set(
    Object.entries(parameters)
      .filter(([name, p]) => (p.location ?? 'header') === 'body' && credentialKind(name, p) !== undefined)
      .map(([name]) => name),
  );
  if (names.size === 0) return;
  const analysed = analyse(expressionSource(inputTransform, true)?.body ?? inputTransform);
  if (!analysed) return;
  const reshaping = new Set<string>();
  eachAstNode(analysed.ast, (node) => {
    if (node.type !== 'function' && node.type !== 'partial') return;
    const procedure = node.procedure as { value?: unknown } | undefined;
    if (KEEPS_REFERENCE.has(String(procedure?.value))) return;
    eachAstNode(node.arguments, (inner) => {
      if (inner.type === 'name' && names.has(String(inner.value))) reshaping.add(String(inner.value));
    });
  });
  for (const name of reshaping) {
    r.report(
      'CREDENTIAL_RESHAPED',
      `the inputTransform passes credential parameter '${name}' to a function: restfn sends a credential only as a whole value (or inside a text made with &), so a reshaped one is sent as a meaningless reference; use a credential kind that builds the value (basic, bearer), or send it as it is`,
      ['inputTransform'],
    );
  }
};

/**
 * A continuation's parameters replace the function's on the next pages (conventions.md): without
 * them, page 2 goes out with none of the function's parameters, and a credential header dropped
 * there fails as a bare 401. Said here, naming what the next pages lose, credentials first.
 */
export const continuationParameters: FunctionRule = (file, r) => {
  const { parameters = {}, continuation } = file.definition;
  if (!continuation) return;
  const kept = new Set(Object.keys(continuation.parameters ?? {}));
  // A next link (`url`) carries its query and path itself; headers and credentials it cannot.
  const carried = (location: string) =>
    location === 'output' ||
    (continuation.url !== undefined && (location === 'query' || location === 'path'));
  const lost = Object.entries(parameters)
    .filter(
      ([name, p]) =>
        !kept.has(name) && (credentialKind(name, p) !== undefined || !carried(p.location ?? 'header')),
    )
    .sort(
      ([a, pa], [b, pb]) =>
        Number(credentialKind(b, pb) !== undefined) - Number(credentialKind(a, pa) !== undefined) ||
        a.localeCompare(b),
    )
    .map(([name, p]) => (credentialKind(name, p) !== undefined ? `${name} (a credential)` : name));
  if (lost.length === 0) return;
  r.report(
    'CONTINUATION_PARAMETERS',
    `the next pages are sent with continuation.parameters only, which replace the function's: they lose ${lost.join(', ')}; repeat ${lost.length > 1 ? 'those' : 'it'} under continuation.parameters (a page cursor may change them there)`,
    continuation.parameters === undefined ? ['continuation'] : ['continuation', 'parameters'],
    { key: true },
  );
};
