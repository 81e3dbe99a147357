import { type Command, Option } from 'commander';
import { DEFAULT_REDIRECT, login } from '../../auth/login.js';
import type { Credential, CredentialStore, OAuthCredential } from '../../auth/store.js';
import { SYSTEM_CLOCK } from '../../errors/clock.js';
import { UsageError } from '../../errors/restfn-error.js';
import { openCredentials } from '../credentials.js';
import { readSecret } from '../read-secret.js';
import { solutionDir } from '../solution-dir.js';

interface SetOptions {
  kind: 'secret' | 'basic' | 'oauth';
  solution?: string;
  username?: string;
  tokenUrl?: string;
  authorizeUrl?: string;
  issuer?: string;
  clientId?: string;
  scope: string[];
  grant: 'authorization_code' | 'client_credentials';
  redirectUri?: string;
  public?: boolean;
}

export function registerCredentials(program: Command): void {
  const credentials = program
    .command('credentials')
    .description("manage the solution's credentials (stored encrypted; values are never shown again)");

  credentials
    .command('set')
    .description(
      'store a credential; secret values are read from standard input or a hidden prompt, never from arguments',
    )
    .argument('<key>', "credential key, as named by the parameters' value")
    .addOption(
      new Option('-k, --kind <kind>', 'credential kind')
        .choices(['secret', 'basic', 'oauth'])
        .makeOptionMandatory(),
    )
    .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
    .option('--username <name>', 'basic: the username (the password is read like a secret)')
    .option('--token-url <url>', 'oauth: token endpoint')
    .option('--authorize-url <url>', 'oauth: authorization endpoint (authorization code flow)')
    .option('--issuer <url>', "oauth: the server's issuer identifier (default: the token URL's origin)")
    .option('--client-id <id>', 'oauth: client id')
    .option(
      '--scope <scope>',
      'oauth: a scope to request (repeatable)',
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .addOption(
      new Option('--grant <type>', 'oauth: grant type')
        .choices(['authorization_code', 'client_credentials'])
        .default('authorization_code'),
    )
    .option('--redirect-uri <uri>', `oauth: loopback redirect for login (default ${DEFAULT_REDIRECT})`)
    .option('--public', 'oauth: a public client (no client secret; PKCE only)')
    .action(async (key: string, options: SetOptions) => {
      const credential = await buildCredential(options);
      openCredentials(solutionDir(options.solution), true).set(key, credential);
      process.stdout.write(`stored ${credential.kind} credential '${key}'\n`);
    });

  credentials
    .command('list')
    .description('list credential keys and kinds (never their values)')
    .option('-s, --solution <dir>', 'solution folder')
    .action((options: { solution?: string }) => {
      const store = openCredentials(solutionDir(options.solution));
      const entries = store.list();
      for (const e of entries) {
        const state = e.kind === 'oauth' ? ` (${oauthState(grantOf(store, e.key), e.hasToken)})` : '';
        process.stdout.write(`${e.key}\t${e.kind}${state}\n`);
      }
      if (entries.length === 0) process.stdout.write('no credentials stored\n');
    });

  credentials
    .command('delete')
    .description('delete a credential and its tokens')
    .argument('<key>')
    .option('-s, --solution <dir>', 'solution folder')
    .action((key: string, options: { solution?: string }) => {
      if (!openCredentials(solutionDir(options.solution)).delete(key)) {
        throw new UsageError(`no credential '${key}'`, 'CREDENTIAL_NOT_FOUND');
      }
      process.stdout.write(`deleted '${key}'\n`);
    });

  program
    .command('login')
    .description('log in to an OAuth credential: prints the URL to open, then waits for the redirect')
    .argument('<key>', 'OAuth credential key')
    .option('-s, --solution <dir>', 'solution folder')
    .action(async (key: string, options: { solution?: string }) => {
      const store = openCredentials(solutionDir(options.solution));
      if (grantOf(store, key) === 'client_credentials') {
        throw new UsageError(
          `credential '${key}' uses the client_credentials grant: restfn gets its tokens from the token endpoint when a function needs them, so there is nothing to log in to; run the function`,
          'LOGIN_NOT_NEEDED',
        );
      }
      await login(store, key, {
        clock: SYSTEM_CLOCK,
        onUrl: (url) => process.stderr.write(`Open this address in a browser to log in:\n${url}\n`),
      });
      process.stdout.write(`logged in: '${key}'\n`);
    });
}

/**
 * `list` and `login` must tell the same story: only the authorization-code grant logs in; a
 * client-credentials credential fetches its own tokens. The grant is inside the encrypted record,
 * so it is read with the key; without a usable key it stays unknown.
 */
function grantOf(store: CredentialStore, key: string): OAuthCredential['grantType'] | undefined {
  try {
    const credential = store.get(key);
    return credential?.kind === 'oauth' ? credential.grantType : undefined;
  } catch {
    return undefined;
  }
}

/** What `credentials list` says about an OAuth credential (pure, so the wording is tested once). */
export function oauthState(grant: OAuthCredential['grantType'] | undefined, hasToken: boolean): string {
  if (grant === 'client_credentials')
    return hasToken ? 'client credentials: token cached' : 'client credentials: no login needed';
  if (hasToken) return 'logged in';
  return grant === undefined ? 'no token' : 'no token: restfn login';
}

async function buildCredential(o: SetOptions): Promise<Credential> {
  if (o.kind === 'secret') return { kind: 'secret', value: await readSecret('secret value') };
  if (o.kind === 'basic') {
    if (!o.username) throw new UsageError('--username is required for a basic credential');
    return { kind: 'basic', username: o.username, password: await readSecret('password') };
  }
  if (!o.tokenUrl || !o.clientId)
    throw new UsageError('--token-url and --client-id are required for an oauth credential');
  if (o.grant === 'authorization_code' && !o.authorizeUrl) {
    throw new UsageError('--authorize-url is required for the authorization_code grant');
  }
  const clientSecret = o.public ? undefined : await readSecret('client secret');
  return {
    kind: 'oauth',
    tokenEndpoint: o.tokenUrl,
    ...(o.authorizeUrl ? { authorizationEndpoint: o.authorizeUrl } : {}),
    ...(o.issuer ? { issuer: o.issuer } : {}),
    clientId: o.clientId,
    ...(clientSecret ? { clientSecret } : {}),
    scopes: o.scope,
    grantType: o.grant,
    ...(o.redirectUri ? { redirectUri: o.redirectUri } : {}),
  };
}
