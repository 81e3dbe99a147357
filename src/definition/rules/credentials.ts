import { isExpression } from '../../expression/source.js';
import { CREDENTIAL_NAME, credentialKind, looksLikeSecret } from '../credential-params.js';
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
        `parameter '${name}' holds a literal ${value.split(/\s/)[0]} credential; store it in the credentials store and use an 'accessToken' (<provider>.oauth) or 'secret' parameter`,
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
