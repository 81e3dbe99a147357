import { CredentialError } from '../errors/credential-error.js';
import { printable } from '../errors/printable.js';
import { type AbortLike, toSignal } from '../http/abort.js';
import type { PlacedValue } from '../http/build-request.js';
import { headerValueProblem } from '../http/header-text.js';
import { SecretRefs } from '../http/secret-refs.js';
import type { Engine } from './engine.js';
import { credentialTexts } from './mask.js';
import type { ResolvedParameter } from './parameters.js';

/**
 * Credential parameters become references to the values the provider gives for them (`SecretRefs`:
 * only the bytes sent hold the values); the rest pass through. `secrets` are the texts to mask
 * wherever the call may be shown: each value in its placed forms, and its reference. With
 * `refresh`, OAuth credentials are asked for a fresh token (a 401 retry).
 */
export async function applyCredentials(
  engine: Engine,
  parameters: readonly ResolvedParameter[],
  options: {
    readonly signal: AbortLike | undefined;
    /** A 401 retry: OAuth credentials are asked for a fresh token. */
    readonly refresh?: boolean;
    /** `useLocalCall`: the device makes the call, where only OAuth is available (spec 5). */
    readonly localCall?: boolean;
    /** The calling user's id (`@ctx.user.id`): whose connection a per-user credential uses. */
    readonly user?: string;
  },
): Promise<{ placed: PlacedValue[]; secrets: string[]; refs: SecretRefs; schemeless?: string }> {
  const { signal, refresh = false, localCall = false } = options;
  const placed: PlacedValue[] = [];
  const secrets: string[] = [];
  const refs = new SecretRefs();
  let schemeless: string | undefined;
  for (const p of parameters) {
    if (!p.credential) {
      placed.push(p);
      continue;
    }
    // Spec 5: a local call is made by the device itself, where only OAuth is available.
    if (localCall && p.credential !== 'oauth') {
      throw new CredentialError(
        'LOCAL_CALL_CREDENTIAL',
        `parameter '${p.name}' needs a ${p.credential} credential, which a local call (useLocalCall: true) cannot use: only OAuth works on the device`,
      );
    }
    const key = String(p.value);
    const request = {
      parameter: p.name,
      kind: p.credential,
      key,
      location: p.location,
      ...(options.user === undefined ? {} : { user: options.user }),
    };
    const applied = await engine.credentials
      .apply({ ...request, refresh: refresh && p.credential === 'oauth' }, toSignal(signal))
      .catch((error: unknown) => {
        // Which kind of credential is missing decides the name error handlers see (call.ts).
        if (error instanceof CredentialError)
          Object.defineProperty(error, 'credentialKind', { value: p.credential, configurable: true });
        throw error;
      });
    for (const v of applied.values) {
      if (v.location === 'header') checkCredentialHeader(p.name, key, v.value);
      // An Authorization header holding a bare token (a secret stored without `Bearer `): said if
      // the service answers 401.
      if (v.location === 'header' && v.name.toLowerCase() === 'authorization' && !/\s/.test(v.value.trim()))
        schemeless = key;
      const ref = refs.refer(v.value, key, applied.origins);
      placed.push({ ...v, value: ref, secret: true });
      secrets.push(...credentialTexts(v.value), ref);
    }
  }
  return { placed, secrets, refs, ...(schemeless ? { schemeless } : {}) };
}

/**
 * A stored value a header cannot carry (a pasted line break) is the credential's fault, not the
 * caller's: say which credential and how to fix it, without naming any of its characters.
 */
function checkCredentialHeader(parameter: string, key: string, value: string): void {
  const problem = headerValueProblem(value);
  if (!problem) return;
  throw new CredentialError(
    'CREDENTIAL_VALUE',
    `credential '${printable(key)}' for header parameter '${printable(parameter)}' holds a ${problem.kind}, which a header cannot carry; store it again without it ('restfn credentials set ${printable(key)}')`,
    key,
  );
}
