import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type PostgresCluster, startPostgres } from '../../scripts/pg-cluster.mjs';
import { login } from '../../src/auth/login.js';
import { StoreCredentialProvider } from '../../src/auth/provider.js';
import { CredentialStore, type OAuthCredential, type TokenSet } from '../../src/auth/store.js';
import { loadSolution } from '../../src/definition/solution.js';
import { DEFAULT_CEILINGS } from '../../src/platform/ceilings.js';
import { Executor } from '../../src/platform/executor/pool.js';
import { Sandboxes } from '../../src/platform/executor/sandbox.js';
import { Runtimes } from '../../src/platform/runtimes.js';
import { ensureAdmin } from '../../src/platform/serve.js';
import { PostgresPlatformStore } from '../../src/platform/store/postgres/store.js';
import type { VersionRecord } from '../../src/platform/store/types.js';
import { TtlCache } from '../../src/platform/ttl-cache.js';
import { connectionBinding } from '../../src/platform/vault/credential-change.js';
import { Vault } from '../../src/platform/vault/vault.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { runCli } from '../helpers/cli.js';
import { recordingClock } from '../helpers/clock.js';
import { encodings } from '../helpers/encodings.js';
import { json, testServer } from '../helpers/http-server.js';
import { actAsUser, authServer, CLIENT_ID, CLIENT_SECRET, loginAsUser } from '../helpers/oauth-server.js';
import { type PlatformProcess, startPlatformProcess } from '../helpers/platform.js';
import { tempSolution } from '../helpers/temp-solution.js';

/**
 * Scale-out (issue 16): two real `restfn serve` processes on one real PostgreSQL, as an operator
 * runs them behind a load balancer. Any instance answers any request; what one writes, the other
 * uses at once; a killed instance or a restarted database loses nothing.
 */

const ADMIN = 'rfn_cluster_admin_0123456789abcdefghijklmnop';
const SECRET = 'sk-cluster-8Hq3vXz9LmR4tWp7Kc2N';

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

/** Two instances on a new database, sharing the master key (as they must). */
async function twoInstances(
  args: string[] = [],
): Promise<{ a: PlatformProcess; b: PlatformProcess; url: string }> {
  const url = await cluster.createDatabase();
  const common = ['--database', url, '--allow-private-targets', ...args];
  const a = await startPlatformProcess({ args: common, env: { RESTFN_ADMIN_TOKEN: ADMIN } });
  const b = await startPlatformProcess({
    args: common,
    env: { RESTFN_ADMIN_TOKEN: ADMIN },
    keyFile: a.keyFile,
  });
  return { a, b, url };
}

const getFunction = (url: string, transform = '') =>
  `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${url}/things\nparameters:\n  x-api-key: { location: header, type: secret, value: api-key }\n${transform}`;

const execute = (p: PlatformProcess, token = ADMIN) =>
  p.api('POST', '/api/v1/solutions/crm/functions/rest-get-things/execute', { token, body: {} });

describe('two instances on one PostgreSQL', () => {
  it('publish through A runs through B; a credential set through B is used through A; tokens, audit and rate limits are shared', async () => {
    const service = await testServer((req, res) =>
      req.headers['x-api-key'] === SECRET ? json(res, 200, { n: 1, echo: SECRET }) : json(res, 401, {}),
    );
    const { a, b, url } = await twoInstances(['--rate-limit', '40']);
    const published = await a.api('PUT', '/api/v1/solutions/crm', {
      token: ADMIN,
      body: { files: { 'functions/rest-get-things.platform': getFunction(service.url) } },
    });
    expect(published.status).toBe(201);
    // B runs what A published: the credential is not there yet, so the platform says which.
    expect((await execute(b)).body).toMatchObject({ code: 'CREDENTIAL_NOT_FOUND' });
    const put = await b.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
      token: ADMIN,
      body: { kind: 'secret', value: SECRET },
    });
    expect(put.status).toBe(201);
    const ran = await execute(a);
    expect(ran.body).toMatchObject({ status: 'ok', output: { n: 1, echo: '***' }, version: 1 });

    // A new version through A is what B runs next (the change is told by NOTIFY).
    await a.api('PUT', '/api/v1/solutions/crm', {
      token: ADMIN,
      body: {
        files: {
          'functions/rest-get-things.platform': getFunction(
            service.url,
            'outputTransform: \'{ "m": n + 1 }\'\n',
          ),
        },
      },
    });
    await expect.poll(async () => (await execute(b)).body.version).toBe(2);
    expect((await execute(b)).body.output).toEqual({ m: 2 });

    // A token made through A works through B; revoked through B, A refuses it.
    await a.api('POST', '/api/v1/users', {
      token: ADMIN,
      body: { name: 'bob', role: 'user', solutions: ['crm'] },
    });
    const made = await a.api('POST', '/api/v1/users/bob/tokens', { token: ADMIN, body: {} });
    const bob = made.body.token as string;
    expect((await execute(a, bob)).status).toBe(200);
    expect((await execute(b, bob)).status).toBe(200);
    await b.api('DELETE', `/api/v1/users/bob/tokens/${made.body.id}`, { token: ADMIN });
    // A runs bob's executions until it hears of the revocation (counted: each is audited).
    let bobRan = 2;
    await expect
      .poll(async () => {
        const status = (await execute(a, bob)).status;
        if (status === 200) bobRan++;
        return status;
      })
      .toBe(401);

    // The audit is one log: B lists what A did.
    const audit = await b.api('GET', '/api/v1/solutions/crm/executions?limit=100', { token: ADMIN });
    const actions = audit.body.entries.map((e: { action: string }) => e.action);
    expect(actions.filter((x: string) => x === 'publish')).toHaveLength(2);
    expect(actions).toContain('credential.put');
    expect(audit.body.entries.filter((e: { actor: string }) => e.actor === 'bob')).toHaveLength(bobRan);

    // One count per token across the instances: 40 a minute in all, wherever they land (each
    // instance shares its counts every 100 ms, so the two together let through fewer than the 80
    // that two counts of their own would).
    const statuses: number[] = [];
    while (!statuses.includes(429) && statuses.length < 200) {
      statuses.push((await (statuses.length % 2 ? a : b).api('GET', '/api/v1/me', { token: ADMIN })).status);
      if (statuses.length % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 200).length).toBeLessThan(40);

    // The secret is in no answer, log line or row of the database (sealed there).
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const rows = JSON.stringify((await db.query('SELECT * FROM credentials')).rows);
    const audited = JSON.stringify((await db.query('SELECT * FROM audit')).rows);
    await db.end();
    for (const form of encodings(SECRET)) {
      expect(JSON.stringify([ran.body, audit.body])).not.toContain(form);
      expect(a.output() + b.output()).not.toContain(form);
      expect(rows + audited).not.toContain(form);
    }
  });

  it('an OAuth token is fetched once for the whole cluster, however many executions need it at once', async () => {
    const as = await authServer('http://127.0.0.1:1/callback');
    const service = await testServer(async (req, res) =>
      (await as.isValid(req.headers.authorization?.replace(/^Bearer /, '')))
        ? json(res, 200, { ok: true })
        : json(res, 401, {}),
    );
    const { a, b } = await twoInstances();
    await a.api('PUT', '/api/v1/solutions/crm', {
      token: ADMIN,
      body: {
        files: {
          'functions/rest-get-things.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/me\nparameters:\n  accessToken: { location: header, type: test.oauth, value: api }\n`,
        },
      },
    });
    await b.api('PUT', '/api/v1/solutions/crm/credentials/api', {
      token: ADMIN,
      body: {
        kind: 'oauth',
        tokenEndpoint: as.tokenEndpoint,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        scopes: ['api'],
        grantType: 'client_credentials',
      },
    });
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => execute(i % 2 ? a : b)));
    expect(answers.map((r) => r.status)).toEqual(Array(16).fill(200));
    expect(as.grants).toEqual(['client_credentials']);
    for (const form of encodings(CLIENT_SECRET)) expect(a.output() + b.output()).not.toContain(form);
  });
});

describe('OAuth refresh across instances', () => {
  it('expired tokens with a rotating refresh token: one refresh for ten executions on two instances; the rotated token kept', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const redirectUri = `http://127.0.0.1:${(probe.address() as { port: number }).port}/callback`;
    await new Promise((resolve) => probe.close(resolve));
    const as = await authServer(redirectUri, 60);
    const service = await testServer(async (req, res) =>
      (await as.isValid(req.headers.authorization?.replace(/^Bearer /, '')))
        ? json(res, 200, { ok: true })
        : json(res, 401, {}),
    );
    const credential: OAuthCredential = {
      kind: 'oauth',
      tokenEndpoint: as.tokenEndpoint,
      authorizationEndpoint: as.authorizationEndpoint,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      scopes: ['api', 'offline_access'],
      grantType: 'authorization_code',
      redirectUri,
    };
    // A user's login (played here on a device store) gives the tokens the platform then holds.
    const root = tempSolution({
      'functions/rest-me.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/me\nparameters:\n  accessToken: { location: header, type: test.oauth, value: web }\n`,
    });
    const device = new CredentialStore(join(root, 'device.db'), randomBytes(32));
    device.set('web', credential);
    const clock = recordingClock(Date.now());
    await loginAsUser(device, clock);
    const loggedIn = device.getTokens('web')!;
    expect(loggedIn.refreshToken).toBeTruthy();

    // Two instances: each its own connections to one database, one master key.
    const url = await cluster.createDatabase();
    const master = randomBytes(32);
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const store = await PostgresPlatformStore.open(url);
        const vault = new Vault(store, master);
        const runtime = createRuntime(loadSolution(root), {
          credentials: new StoreCredentialProvider(() => vault.records('crm'), clock),
          clock,
        });
        onTestFinished(async () => {
          await runtime.close();
          await store.close();
        });
        return { vault, runtime };
      }),
    );
    await instances[0]!.vault.put('crm', 'web', credential, { name: 'ada', admin: false });
    // Expired: every execution needs new tokens before its call.
    await instances[0]!.vault.records('crm').setTokens('web', { ...loggedIn, expiresAt: 0 });

    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => instances[i % 2]!.runtime.execute('rest-me')),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill('ok'));
    expect(as.grants.filter((g) => g === 'refresh_token')).toHaveLength(1);
    const held = await instances[1]!.vault.records('crm').getTokens('web');
    expect(held?.refreshToken).toBeTruthy();
    expect(held?.refreshToken).not.toBe(loggedIn.refreshToken);
  });

  it("per-user connections on two instances: one refresh per user for ten executions each, each user's own account", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const redirectUri = `http://127.0.0.1:${(probe.address() as { port: number }).port}/callback`;
    await new Promise((resolve) => probe.close(resolve));
    const as = await authServer(redirectUri, 60);
    const service = await testServer(async (req, res) => {
      const found = await as.provider.AccessToken.find(
        String(req.headers.authorization).replace(/^Bearer /, ''),
      );
      return found && !found.isExpired ? json(res, 200, { account: found.accountId }) : json(res, 401, {});
    });
    const credential: OAuthCredential = {
      kind: 'oauth',
      tokenEndpoint: as.tokenEndpoint,
      authorizationEndpoint: as.authorizationEndpoint,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      scopes: ['api', 'offline_access'],
      grantType: 'authorization_code',
      redirectUri,
    };
    const root = tempSolution({
      'functions/rest-me.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/me\nparameters:\n  accessToken: { location: header, type: test.oauth, value: web }\n`,
    });
    const clock = recordingClock(Date.now());
    // Two accounts' logins, as the connect flow would give the platform their tokens.
    const loggedIn: Record<string, Omit<TokenSet, 'kind'>> = {};
    for (const account of ['ada-account', 'bob-account']) {
      const device = new CredentialStore(join(root, `${account}.db`), randomBytes(32));
      device.set('web', credential);
      let browsing: Promise<URL> | undefined;
      await login(device, 'web', {
        clock,
        onUrl: (u) => {
          browsing = actAsUser(u, account);
        },
      });
      await browsing;
      loggedIn[account] = device.getTokens('web')!;
    }
    const url = await cluster.createDatabase();
    const master = randomBytes(32);
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const store = await PostgresPlatformStore.open(url);
        const vault = new Vault(store, master);
        const runtime = createRuntime(loadSolution(root), {
          credentials: new StoreCredentialProvider(() => vault.records('crm'), clock, { perUser: true }),
          clock,
        });
        onTestFinished(async () => {
          await runtime.close();
          await store.close();
        });
        return { vault, runtime };
      }),
    );
    const vault = instances[0]!.vault;
    await vault.put('crm', 'web', credential, { name: 'admin', admin: true });
    for (const [user, account] of [
      ['u-ada', 'ada-account'],
      ['u-bob', 'bob-account'],
    ] as const) {
      // Expired: every execution needs new tokens before its call.
      await vault.connect(
        'crm',
        'web',
        { id: user, name: user },
        { ...loggedIn[account]!, expiresAt: 0 },
        {
          account,
          scopes: credential.scopes,
        },
        connectionBinding(credential),
      );
    }
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        instances[i % 2]!.runtime.execute('rest-me', {}, { user: { id: i < 10 ? 'u-ada' : 'u-bob' } }),
      ),
    );
    expect(
      results.map((r) => (r.status === 'ok' ? (r.output as { account: string }).account : r.status)),
    ).toEqual([...Array(10).fill('ada-account'), ...Array(10).fill('bob-account')]);
    expect(as.grants.filter((g) => g === 'refresh_token')).toHaveLength(2);
    // Each user's rotated refresh token is kept, and who connected as whom with it.
    const connections = await vault.connections('crm');
    expect(connections.map((c) => [c.user, c.account]).sort()).toEqual([
      ['u-ada', 'ada-account'],
      ['u-bob', 'bob-account'],
    ]);
    for (const [user, account] of [
      ['u-ada', 'ada-account'],
      ['u-bob', 'bob-account'],
    ] as const) {
      const held = await vault.records('crm').getTokens('web', user);
      expect(held?.refreshToken).toBeTruthy();
      expect(held?.refreshToken).not.toBe(loggedIn[account]!.refreshToken);
    }
  });
});

/** Two instances, a service answering `{n: 1}`, and through A its function and credential. */
async function publishedOnTwo() {
  const service = await testServer((_req, res) => json(res, 200, { n: 1 }));
  const instances = await twoInstances();
  await instances.a.api('PUT', '/api/v1/solutions/crm', {
    token: ADMIN,
    body: { files: { 'functions/rest-get-things.platform': getFunction(service.url) } },
  });
  await instances.a.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
    token: ADMIN,
    body: { kind: 'secret', value: SECRET },
  });
  return instances;
}

describe('faults', () => {
  it('an instance killed (SIGKILL) under load: the other goes on answering; nothing answered is missing', async () => {
    const { a, b } = await publishedOnTwo();
    const answered: string[] = [];
    const failedOnB: number[] = [];
    let killed = false;
    // Four clients, each alternating between A and B; A dies a quarter of the way through.
    await Promise.all(
      Array.from({ length: 4 }, async (_, client) => {
        for (let i = 0; i < 40; i++) {
          if (client === 0 && i === 10) {
            killed = true;
            await a.stop('SIGKILL');
          }
          const target = (i + client) % 2 === 0 ? a : b;
          if (target === a && killed) continue;
          try {
            const r = await execute(target);
            if (r.status === 200) answered.push(r.body.correlationId);
            else if (target === b) failedOnB.push(r.status);
          } catch (error) {
            // A request in flight on A when it died has no answer: the client would retry elsewhere.
            if (target === b) throw error;
          }
        }
      }),
    );
    expect(killed).toBe(true);
    expect(failedOnB).toEqual([]);
    // Every execution answered, through either instance, has its audit row.
    const audit = await b.api('GET', '/api/v1/solutions/crm/executions?limit=1000', { token: ADMIN });
    const logged = new Set(audit.body.entries.map((e: { correlationId: string }) => e.correlationId));
    expect(answered.length).toBeGreaterThan(60);
    expect(answered.filter((id) => !logged.has(id))).toEqual([]);
    // The solution and its credential are all there for B.
    expect((await execute(b)).body).toMatchObject({ status: 'ok', output: { n: 1 } });
  });

  it('PostgreSQL stopped under load: STORE_UNAVAILABLE (503) while it is down, answers again by themselves when it is back', async () => {
    const { a, b } = await publishedOnTwo();
    expect((await execute(a)).status).toBe(200);
    cluster.pause();
    try {
      expect((await a.api('GET', '/healthz')).status).toBe(503);
      const down = await Promise.all([execute(a), execute(b), execute(a), execute(b)]);
      for (const answer of down) {
        expect(answer.status).toBe(503);
        expect(answer.body).toMatchObject({ status: 'error', code: 'STORE_UNAVAILABLE' });
      }
    } finally {
      cluster.resume();
    }
    await expect.poll(async () => (await execute(a)).status, { timeout: 30_000 }).toBe(200);
    await expect.poll(async () => (await execute(b)).status, { timeout: 30_000 }).toBe(200);
    expect((await b.api('GET', '/healthz')).body).toEqual({ status: 'ok' });
    // Both processes stayed up the whole time, and each said so once in its log.
    expect(a.output() + b.output()).not.toMatch(/uncaught|unhandled/i);
    for (const p of [a, b]) {
      expect(p.output().match(/"code":"STORE_UNAVAILABLE"[^\n]*cannot be reached/g)).toHaveLength(1);
    }
  });
});

describe("a solution's runtime", () => {
  it('made while PostgreSQL went away is made again once it is back (the failure was kept: 503 for good)', async () => {
    const url = await cluster.createDatabase();
    const store = await PostgresPlatformStore.open(url);
    onTestFinished(() => store.close());
    await store.addVersion(
      'crm',
      { 'functions/rest-get-things.platform': getFunction('http://127.0.0.1:9') },
      'ada',
      'd1',
    );
    // The current version is known (as for a second after a lookup), then the database goes away
    // before the version's files are read: the runtime cannot be made.
    const versions = new TtlCache<string, VersionRecord | undefined>(600_000);
    const root = mkdtempSync(join(tmpdir(), 'restfn-runtimes-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const executor = new Executor({
      dataDir: root,
      ceilings: DEFAULT_CEILINGS,
      allowPrivateTargets: true,
      allowTargets: {},
      maxWorkers: 1,
      cacheBytes: 64 * 1024 * 1024,
      records: (solution) => new Vault(store, randomBytes(32)).records(solution),
    });
    const sandboxes = new Sandboxes({
      ceilings: DEFAULT_CEILINGS,
      allowPrivateTargets: true,
      allowTargets: {},
      records: (solution) => new Vault(store, randomBytes(32)).records(solution),
    });
    const runtimes = new Runtimes({ dataDir: root, store, versions, executor, sandboxes });
    onTestFinished(() => runtimes.close());
    await versions.get('crm', () => store.currentVersion('crm'));
    cluster.pause();
    try {
      await expect(runtimes.current('crm')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    } finally {
      cluster.resume();
    }
    await expect(runtimes.current('crm')).resolves.toMatchObject({ number: 1 });
    // The version's functions, read in a worker.
    expect((await runtimes.describe('crm')).names).toEqual(['rest-get-things']);
  });
});

describe('starting', () => {
  it('instances starting together on an empty database make one first admin, and none of them fails', async () => {
    const url = await cluster.createDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => PostgresPlatformStore.open(url)));
    onTestFinished(() => Promise.all(stores.map((s) => s.close())).then(() => undefined));
    // What each `restfn serve` does once it listens, all at once (without a lock across them, each
    // saw no admin and all but one failed on the user name).
    const tokens = await Promise.all(stores.map((s) => ensureAdmin(s, {})));
    expect(tokens.filter((t) => t !== undefined)).toHaveLength(1);
    const users = await stores[0]!.listUsers();
    expect(users.map((u) => [u.name, u.role])).toEqual([['admin', 'admin']]);
  });
});

describe('the master key', () => {
  it('an instance with another key is refused before any credential is stored; rotate-key is refused while an instance serves, and records the new key', async () => {
    const url = await cluster.createDatabase();
    const common = ['--database', url, '--allow-private-targets'];
    const a = await startPlatformProcess({ args: common, env: { RESTFN_ADMIN_TOKEN: ADMIN } });
    // B has a key of its own (its own key file): it would seal what it is given under it, and A
    // could not open that.
    const bRoot = mkdtempSync(join(tmpdir(), 'restfn-platform-'));
    onTestFinished(() => rmSync(bRoot, { recursive: true, force: true }));
    const b = await startPlatformProcess({
      root: bRoot,
      args: common,
      env: { RESTFN_ADMIN_TOKEN: ADMIN },
    }).catch((error: Error) => error);
    expect(b).toBeInstanceOf(Error);
    expect((b as Error).message).toContain('restfn: error CREDENTIAL_KEY_INVALID: the master key given');

    // While A serves (from any host: its own data folder is elsewhere), a rotation is refused: A
    // would go on with the old key.
    const refused = await runCli(['serve', 'rotate-key', '--database', url, '--master-key-file', a.keyFile]);
    expect(refused.stderr).toMatch(
      /^restfn: error USAGE: 1 restfn serve instance\(s\) run on this database: stop every one/m,
    );
    expect(refused.code).toBe(2);
    await a.stop();

    // A rotation records the new key, credentials or not.
    const rotated = await runCli(['serve', 'rotate-key', '--database', url, '--master-key-file', a.keyFile]);
    expect(rotated.stderr).toContain('restfn: 0 credential(s) re-encrypted');
    expect(rotated.code).toBe(0);
    const after = await startPlatformProcess({ args: common, keyFile: a.keyFile });
    expect((await after.api('GET', '/api/v1/me', { token: ADMIN })).status).toBe(200);
  });

  it('rotate-key with a current key that is not the one the credentials are sealed under: CREDENTIAL_KEY_INVALID, exit 4', async () => {
    const { a, b, url } = await publishedOnTwo();
    await Promise.all([a.stop(), b.stop()]);
    const r = await runCli(['serve', 'rotate-key', '--database', url], {
      env: {
        RESTFN_MASTER_KEY: randomBytes(32).toString('base64'),
        RESTFN_NEW_MASTER_KEY: randomBytes(32).toString('base64'),
      },
    });
    expect(r.stderr).toMatch(
      /^restfn: error CREDENTIAL_KEY_INVALID: the master key given \(id \w+\) does not open this data/m,
    );
    expect(r.code).toBe(4);
  });
});

describe('a wrong database URL', () => {
  const PASSWORD = 'pw-Never-Shown-4Xq9';
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'restfn-url-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const serveOn = (url: string) =>
    runCli(['serve', '--port', '0', '--data', join(root, 'data')], {
      env: { RESTFN_DATABASE_URL: url, RESTFN_MASTER_KEY: randomBytes(32).toString('base64') },
    });

  it('a user or database PostgreSQL refuses is STORE_REFUSED (exit 2), the password in no line', async () => {
    const given = new URL(cluster.url);
    const noUser = new URL(given);
    noUser.username = 'nobody';
    noUser.password = PASSWORD;
    const noDatabase = new URL(given);
    noDatabase.password = PASSWORD;
    noDatabase.pathname = '/no_such_database';
    for (const url of [noUser, noDatabase]) {
      const r = await serveOn(url.toString());
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^restfn: error STORE_REFUSED: the platform database \(PostgreSQL\) refused/m);
      expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    }
  });

  it('a URL that is not postgres:// is USAGE (exit 2), before any connection, the password in no line', async () => {
    const port = new URL(cluster.url).port;
    for (const url of [
      `mysql://restfn:${PASSWORD}@127.0.0.1:${port}/restfn`,
      `postgres://restfn:${PASSWORD}@127.0.0.1:not-a-port/restfn`,
      `restfn ${PASSWORD}`,
    ]) {
      const r = await serveOn(url);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^restfn: error USAGE: the database URL is not a /m);
      expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    }
  });
});

describe('retention on two instances', () => {
  it("a version removed through A leaves B's data folder too; the quota counts B's publishes", async () => {
    const service = await testServer((_req, res) => json(res, 200, { n: 1 }));
    const { a, b } = await twoInstances(['--keep-versions', '2', '--max-solution-mb', '1']);
    const files = (n: number, pad = 0) => ({
      'functions/rest-get-things.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/things\n# ${n} ${'x'.repeat(pad)}\n`,
    });
    const publish = (p: PlatformProcess, body: Record<string, string>) =>
      p.api('PUT', '/api/v1/solutions/crm', { token: ADMIN, body: { files: body } });
    expect((await publish(a, files(1))).status).toBe(201);
    // B runs version 1: its folder is in B's own --data.
    expect(await execute(b)).toMatchObject({ body: { status: 'ok', version: 1 } });
    const folderB = join(b.dataDir, 'versions', 'crm', '1');
    await expect.poll(() => existsSync(folderB)).toBe(true);
    expect((await publish(a, files(2))).status).toBe(201);
    expect((await publish(a, files(3))).status).toBe(201);
    // B heard of the removal and removed its own folder.
    await expect.poll(() => existsSync(folderB), { timeout: 20_000 }).toBe(false);
    const listed = await b.api('GET', '/api/v1/solutions/crm/versions', { token: ADMIN });
    expect(listed.body.versions.map((v: { removedBy?: string }) => v.removedBy ?? null)).toEqual([
      null,
      null,
      'retention',
    ]);
    // 600 KB through B, then 600 KB more through A: with version 4 kept, version 5 does not fit.
    expect((await publish(b, files(4, 600_000))).status).toBe(201);
    expect((await publish(a, files(5, 600_000))).body).toMatchObject({ code: 'SOLUTION_QUOTA' });
  });
});
