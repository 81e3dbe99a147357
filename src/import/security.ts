import { suggestFileName } from '../definition/naming.js';
import type { ImportedCredential } from './model.js';

/** An authentication method as a description declares it, reduced to what restfn can send (spec 5). */
export type SchemeSpec =
  | { readonly type: 'apiKey'; readonly name: string; readonly in: 'header' | 'query' }
  | { readonly type: 'basic' }
  | { readonly type: 'bearer' }
  | {
      readonly type: 'oauth';
      readonly authorizeUrl?: string | undefined;
      readonly tokenUrl?: string | undefined;
      readonly clientId?: string | undefined;
      readonly grant?: 'authorization_code' | 'client_credentials' | undefined;
      readonly issuer?: string | undefined;
      readonly scopes: readonly string[];
    };

/** Placeholders in the printed `restfn credentials set` commands for what the description does not say. */
export const PLACEHOLDER = {
  tokenUrl: '<TOKEN_URL>',
  clientId: '<CLIENT_ID>',
  username: '<USERNAME>',
} as const;

/** The credential key for a scheme: its name through the naming rule (`api_key` -> `api-key`). */
export function credentialKey(name: string): string {
  return suggestFileName(name) || 'credential';
}

/**
 * The credential parameter for a scheme, per spec 5's table: an API key is a `secret` under the name
 * and at the place the service expects; basic is `basicAuth`, a `secret` holding a basic credential;
 * bearer is an `Authorization` header `secret` naming a bearer credential; OAuth 2 is
 * `accessToken` with `type: <key>.oauth`.
 */
export function credentialFor(scheme: string, key: string, spec: SchemeSpec): ImportedCredential {
  switch (spec.type) {
    case 'apiKey':
      return {
        scheme,
        key,
        kind: 'secret',
        parameter: { name: spec.name, location: spec.in, type: 'secret' },
        setArguments: ['--kind', 'secret'],
      };
    case 'basic':
      return {
        scheme,
        key,
        kind: 'basic',
        parameter: { name: 'basicAuth', location: 'header', type: 'secret' },
        setArguments: ['--kind', 'basic', '--username', PLACEHOLDER.username],
      };
    case 'bearer':
      // A static token the user has (an API's personal token): sent as `Authorization: Bearer`.
      return {
        scheme,
        key,
        kind: 'bearer',
        parameter: { name: 'Authorization', location: 'header', type: 'secret' },
        setArguments: ['--kind', 'bearer'],
      };
    case 'oauth': {
      const args = ['--kind', 'oauth'];
      if (spec.issuer) args.push('--issuer', spec.issuer);
      if (spec.authorizeUrl && spec.grant !== 'client_credentials')
        args.push('--authorize-url', spec.authorizeUrl);
      args.push(
        '--token-url',
        spec.tokenUrl ?? PLACEHOLDER.tokenUrl,
        '--client-id',
        spec.clientId ?? PLACEHOLDER.clientId,
      );
      if (spec.grant === 'client_credentials') args.push('--grant', 'client_credentials');
      return {
        scheme,
        key,
        kind: 'oauth',
        parameter: { name: 'accessToken', location: 'header', type: `${key}.oauth` },
        setArguments: args,
        scopes: spec.scopes,
      };
    }
  }
}
