import { describe, expect, it } from 'vitest';
import type { Credential, OAuthCredential } from '../../src/auth/store.js';
import { connectionBinding, credentialChange } from '../../src/platform/vault/credential-change.js';

const client: OAuthCredential = {
  kind: 'oauth',
  tokenEndpoint: 'https://login.example.com/token',
  authorizationEndpoint: 'https://login.example.com/authorize',
  clientId: 'app',
  clientSecret: 'cs-1',
  scopes: ['api'],
  grantType: 'authorization_code',
  origins: ['https://api.example.com'],
};

const change = (before: Credential | undefined, after: Credential, connections: number, admin = false) =>
  credentialChange({ key: 'graph', before, after, connections, admin });

describe('what storing a credential again may do (credentialChange)', () => {
  it('an author changes nothing users connected to while they are; an admin may, and connections drop', () => {
    const changes: Array<[string, Credential]> = [
      ['clientId', { ...client, clientId: 'other' }],
      ['tokenEndpoint', { ...client, tokenEndpoint: 'https://evil.example/token' }],
      ['revocationEndpoint', { ...client, revocationEndpoint: 'https://evil.example/revoke' }],
      ['issuer', { ...client, issuer: 'https://evil.example' }],
      ['redirectUri', { ...client, redirectUri: 'https://evil.example/cb' }],
      ['origins', { ...client, origins: ['https://api.example.com', 'https://evil.example'] }],
      ['kind', { kind: 'secret', value: 'x', origins: ['https://api.example.com'] }],
    ];
    for (const [field, after] of changes) {
      const refused = change(client, after, 2);
      expect(refused, field).toMatchObject({ allowed: false, code: 'CREDENTIAL_IN_USE' });
      expect(!refused.allowed && refused.message, field).toContain(`changes its ${field}`);
      expect(change(client, after, 2, true), field).toEqual({ allowed: true, dropConnections: true });
      // With no one connected, an author's change is ordinary (origins: see below).
      if (field !== 'origins') expect(change(client, after, 0), field).toMatchObject({ allowed: true });
    }
    // Narrowing is a change of origins too: refused while in use, allowed when not.
    const narrower = { ...client, origins: [] };
    expect(change(client, narrower, 1)).toMatchObject({ code: 'CREDENTIAL_IN_USE' });
    expect(change(client, narrower, 0)).toEqual({ allowed: true, dropConnections: false });
  });

  it('the client secret: removed or another is a change (an admin rotating it keeps connections); the same one is not', () => {
    const { clientSecret: _, ...noSecret } = client;
    for (const after of [noSecret as OAuthCredential, { ...client, clientSecret: 'cs-2' }]) {
      expect(change(client, after, 1)).toMatchObject({ allowed: false, code: 'CREDENTIAL_IN_USE' });
      expect(change(client, after, 1, true)).toEqual({ allowed: true, dropConnections: false });
    }
    expect(change(client, { ...client }, 1)).toEqual({ allowed: true, dropConnections: false });
    // Other scopes are no change of client: the connections keep their own.
    expect(change(client, { ...client, scopes: ['api', 'mail'] }, 1)).toEqual({
      allowed: true,
      dropConnections: false,
    });
    // The secret's value never shows in a refusal.
    const refused = change(client, { ...client, clientSecret: 'cs-2' }, 1);
    expect(JSON.stringify(refused)).not.toMatch(/cs-[12]/);
  });

  it('only an admin adds an origin; a new credential is its author’s; one stored before origins reaches nowhere', () => {
    const secret: Credential = { kind: 'secret', value: 'v', origins: ['https://a.example'] };
    const wider: Credential = { ...secret, origins: ['https://a.example', 'https://b.example'] };
    const refused = change(secret, wider, 0);
    expect(refused).toMatchObject({ allowed: false, code: 'FORBIDDEN' });
    expect(!refused.allowed && refused.message).toContain(
      'only an admin may add an origin to a credential; https://b.example is not one of them (its origins are https://a.example)',
    );
    expect(change(secret, wider, 0, true)).toMatchObject({ allowed: true });
    expect(change(wider, secret, 0)).toMatchObject({ allowed: true });
    expect(change(undefined, wider, 0)).toEqual({ allowed: true, dropConnections: false });
    const legacy: Credential = { kind: 'bearer', token: 't' };
    const stored = change(legacy, { kind: 'bearer', token: 't', origins: ['https://a.example'] }, 0);
    expect(stored).toMatchObject({ allowed: false, code: 'FORBIDDEN' });
    expect(!stored.allowed && stored.message).toContain('stored before origins existed');
  });

  it('a connect flow remembers what the credential was: any change but the secret is another binding', () => {
    expect(connectionBinding({ ...client, clientSecret: 'cs-2' })).toBe(connectionBinding(client));
    expect(connectionBinding({ ...client, origins: ['https://evil.example'] })).not.toBe(
      connectionBinding(client),
    );
    expect(connectionBinding({ ...client, origins: [...client.origins!].reverse() })).toBe(
      connectionBinding(client),
    );
  });
});
