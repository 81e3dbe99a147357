import { describe, expect, it } from 'vitest';
import { AuditRetention } from '../../src/platform/audit-retention.js';
import type {
  AuditEntry,
  CredentialRow,
  PlatformStore,
  StoreChange,
} from '../../src/platform/store/types.js';
import { recordingClock } from '../helpers/clock.js';

/** How a contract run gets a store: a fresh, empty one per test, and the engine-specific hooks. */
export interface StoreHarness {
  /** A new store on new, empty state. */
  fresh(): Promise<OpenedStore>;
}

export interface OpenedStore {
  readonly store: PlatformStore;
  /** Opens another store on the same state (a second process, or a restart). */
  reopen(): Promise<PlatformStore>;
  /** Marks the state as migrated by a newer restfn (its schema version beyond what this one knows). */
  bumpSchema(): Promise<void>;
  /** Removes the state. */
  dispose(): Promise<void>;
}

/**
 * The storage contract (src/platform/store/types.ts): what every engine must do alike, so the
 * platform behaves the same on SQLite and PostgreSQL. Each test gets empty state.
 */
export function storeContract(engine: string, harness: StoreHarness): void {
  const withStore = (title: string, body: (opened: OpenedStore) => Promise<void>) =>
    it(title, async () => {
      const opened = await harness.fresh();
      try {
        await body(opened);
      } finally {
        await opened.dispose();
      }
    });

  describe(`the platform store contract on ${engine}`, () => {
    withStore(
      'users: created with their solutions, found by id and name, listed by name',
      async ({ store }) => {
        expect(await store.countAdmins()).toBe(0);
        const ada = await store.createUser({
          id: 'u1',
          name: 'ada',
          role: 'admin',
          passwordHash: null,
          solutions: ['hr', 'crm', 'crm'],
        });
        expect(ada.created).toMatch(/^\d{4}-\d\d-\d\dT/);
        await store.createUser({
          id: 'u2',
          name: 'Zed',
          role: 'user',
          passwordHash: '$argon2id$x',
          solutions: [],
        });
        await store.createUser({
          id: 'u3',
          name: 'bob',
          role: 'author',
          passwordHash: null,
          solutions: ['crm'],
        });
        expect(await store.countAdmins()).toBe(1);
        expect(await store.userByName('ada')).toMatchObject({
          id: 'u1',
          role: 'admin',
          solutions: ['crm', 'hr'],
        });
        expect(await store.userById('u2')).toMatchObject({
          name: 'Zed',
          passwordHash: '$argon2id$x',
          solutions: [],
        });
        expect(await store.userByName('nobody')).toBeUndefined();
        expect(await store.userById('nobody')).toBeUndefined();
        // Byte order, as SQLite compares text: upper case first.
        expect((await store.listUsers()).map((u) => u.name)).toEqual(['Zed', 'ada', 'bob']);
        await expect(
          store.createUser({ id: 'u4', name: 'ada', role: 'user', passwordHash: null, solutions: ['x'] }),
        ).rejects.toThrow();
        // The refused user left nothing behind.
        expect(await store.userById('u4')).toBeUndefined();
        await store.addMembership('u3', 'hr');
        await store.addMembership('u3', 'hr');
        expect((await store.userById('u3'))?.solutions).toEqual(['crm', 'hr']);
      },
    );

    withStore(
      'users: changed, and removed with their tokens, sessions and memberships',
      async ({ store }) => {
        await store.createUser({
          id: 'u1',
          name: 'ada',
          role: 'author',
          passwordHash: 'h1',
          solutions: ['crm'],
        });
        await store.createToken({ id: 't1', userId: 'u1', name: 'laptop' }, 'hash-1');
        await store.createSession(
          's1',
          session('u1', '2020-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z'),
        );
        const changed = await store.updateUser('u1', { role: 'admin', solutions: ['hr'] });
        expect(changed).toMatchObject({ role: 'admin', solutions: ['hr'], passwordHash: 'h1' });
        expect(await store.sessionByHash('s1', NOW)).toBeDefined();
        // A new password ends the user's sessions.
        await store.updateUser('u1', { passwordHash: 'h2' });
        expect(await store.sessionByHash('s1', NOW)).toBeUndefined();
        expect((await store.userById('u1'))?.passwordHash).toBe('h2');
        expect(await store.updateUser('nobody', { role: 'user' })).toBeUndefined();
        await store.createSession(
          's2',
          session('u1', '2020-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z'),
        );
        expect(await store.deleteUser('u1')).toBe(true);
        expect(await store.deleteUser('u1')).toBe(false);
        expect(await store.tokenByHash('hash-1')).toBeUndefined();
        expect(await store.listTokens('u1')).toEqual([]);
        expect(await store.sessionByHash('s2', NOW)).toBeUndefined();
      },
    );

    withStore('tokens: found by hash while live, listed, revoked once', async ({ store }) => {
      await store.createUser({ id: 'u1', name: 'ada', role: 'user', passwordHash: null, solutions: ['crm'] });
      const made = await store.createToken({ id: 't1', userId: 'u1', name: 'laptop' }, 'hash-1');
      expect(made).toMatchObject({ id: 't1', userId: 'u1', name: 'laptop', revoked: null });
      await store.createToken({ id: 't2', userId: 'u1', name: 'ci' }, 'hash-2');
      expect(await store.tokenByHash('hash-1')).toMatchObject({
        token: { id: 't1' },
        user: { name: 'ada', solutions: ['crm'] },
      });
      expect(await store.tokenByHash('unknown')).toBeUndefined();
      expect((await store.listTokens('u1')).map((t) => t.id).sort()).toEqual(['t1', 't2']);
      const revoked = await store.revokeToken('t1');
      expect(revoked?.revoked).toMatch(/^\d{4}-/);
      expect((await store.revokeToken('t1'))?.revoked).toBe(revoked?.revoked);
      expect(await store.tokenByHash('hash-1')).toBeUndefined();
      expect(await store.tokenByHash('hash-2')).toBeDefined();
      expect(await store.revokeToken('nope')).toBeUndefined();
      await expect(store.createToken({ id: 't3', userId: 'u1', name: 'dup' }, 'hash-2')).rejects.toThrow();
    });

    withStore(
      'sessions: live until they expire, gone when deleted, expired ones cleared',
      async ({ store }) => {
        await store.createUser({ id: 'u1', name: 'ada', role: 'user', passwordHash: 'h', solutions: [] });
        await store.createSession(
          'old',
          session('u1', '2020-01-01T00:00:00.000Z', '2020-01-02T00:00:00.000Z'),
        );
        expect(await store.sessionByHash('old', '2020-01-01T12:00:00.000Z')).toMatchObject({
          session: { userId: 'u1', csrfToken: 'csrf-u1' },
          user: { name: 'ada' },
        });
        expect(await store.sessionByHash('old', '2020-01-02T00:00:00.000Z')).toBeUndefined();
        // A new session clears the expired ones.
        await store.createSession(
          'new',
          session('u1', '2021-01-01T00:00:00.000Z', '2021-01-02T00:00:00.000Z'),
        );
        expect(await store.sessionByHash('old', '2020-01-01T12:00:00.000Z')).toBeUndefined();
        expect(await store.sessionByHash('new', '2021-01-01T12:00:00.000Z')).toBeDefined();
        await store.deleteSession('new');
        expect(await store.sessionByHash('new', '2021-01-01T12:00:00.000Z')).toBeUndefined();
      },
    );

    withStore(
      'versions: numbered per solution, immutable, the latest listed per solution',
      async ({ store }) => {
        expect(await store.currentVersion('crm')).toBeUndefined();
        const v1 = await store.addVersion('crm', { 'functions/a.platform': 'one' }, 'ada', 'd1');
        expect(v1).toMatchObject({ solution: 'crm', version: 1, createdBy: 'ada', digest: 'd1' });
        await store.addVersion(
          'crm',
          { 'functions/a.platform': 'two', 'solution.yaml': 'name: crm\n' },
          'bob',
          'd2',
        );
        await store.addVersion('hr', { 'functions/b.platform': 'ü ✓ \u0000 end' }, 'ada', 'd3');
        expect(await store.currentVersion('crm')).toMatchObject({
          version: 2,
          createdBy: 'bob',
          digest: 'd2',
        });
        expect(await store.versionFiles('crm', 1)).toEqual({ 'functions/a.platform': 'one' });
        expect(await store.versionFiles('hr', 1)).toEqual({ 'functions/b.platform': 'ü ✓ \u0000 end' });
        expect(await store.versionFiles('crm', 3)).toBeUndefined();
        expect((await store.listSolutions()).map((v) => `${v.solution}@${v.version}`)).toEqual([
          'crm@2',
          'hr@1',
        ]);
        expect((await store.listVersions('crm')).map((v) => [v.version, v.createdBy, v.digest])).toEqual([
          [2, 'bob', 'd2'],
          [1, expect.any(String), expect.any(String)],
        ]);
        expect(await store.listVersions('nothing')).toEqual([]);
        // Published at once (several requests, or several instances): each gets the next number.
        const many = await Promise.all(
          Array.from({ length: 6 }, (_, i) => store.addVersion('ops', { f: String(i) }, 'ada', `x${i}`)),
        );
        expect(many.map((v) => v.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
      },
    );

    withStore(
      'versions: sized, held to a quota, and past --keep-versions removed (row kept, files gone) unless in use',
      async ({ store }) => {
        const files = (n: number) => ({ 'functions/a.platform': `v${n} ${'x'.repeat(100)}` });
        const size = Buffer.byteLength(JSON.stringify(files(1)));
        const limits = { maxBytes: 3 * size, keep: 2, inUse: [] as number[] };
        const v1 = await store.addVersion('crm', files(1), 'ada', 'd1', limits);
        expect(v1).toMatchObject({ version: 1, size, removedVersions: [] });
        await store.addVersion('crm', files(2), 'ada', 'd2', limits);
        // The third publish makes room: version 1 goes in the same transaction.
        const v3 = await store.addVersion('crm', files(3), 'ada', 'd3', limits);
        expect(v3.removedVersions).toEqual([1]);
        const listed = await store.listVersions('crm');
        expect(listed.map((v) => [v.version, v.digest, v.removed?.by ?? null])).toEqual([
          [3, 'd3', null],
          [2, 'd2', null],
          [1, 'd1', 'retention'],
        ]);
        expect(listed[2]!.removed!.at).toMatch(/^\d{4}-\d\d-\d\dT/);
        expect(listed[0]!.size).toBe(size);
        expect(await store.versionFiles('crm', 1)).toBeUndefined();
        expect(await store.versionFiles('crm', 2)).toEqual(files(2));
        // A version in use stays whatever its age.
        const v4 = await store.addVersion('crm', files(4), 'ada', 'd4', { ...limits, inUse: [2] });
        expect(v4.removedVersions).toEqual([]);
        expect(await store.versionFiles('crm', 2)).toEqual(files(2));
        // Past the quota (versions 2, 3 and 4 are kept; a fourth would not fit): refused, nothing written.
        await expect(
          store.addVersion('crm', files(5), 'ada', 'd5', { ...limits, keep: 0 }),
        ).rejects.toMatchObject({
          code: 'SOLUTION_QUOTA',
          extra: { usedBytes: 3 * size, uploadBytes: size, quotaBytes: 3 * size, keptVersions: 3 },
        });
        expect((await store.currentVersion('crm'))?.version).toBe(4);
        expect(await store.versionFiles('crm', 2)).toEqual(files(2));
        // Once no longer in use, retention removes it.
        expect(await store.retainVersions('crm', { keep: 2, inUse: [] })).toEqual([2]);
        expect(await store.retainVersions('crm', { keep: 2, inUse: [] })).toEqual([]);
        expect((await store.listVersions('crm')).filter((v) => v.removed).map((v) => v.version)).toEqual([
          2, 1,
        ]);
        // Removed versions count for nothing: two more fit the quota again.
        await store.addVersion('crm', files(5), 'ada', 'd5', limits);
        expect((await store.listSolutions()).map((v) => `${v.solution}@${v.version}`)).toEqual(['crm@5']);
        // keep 0: every version kept.
        expect(await store.retainVersions('crm', { keep: 0, inUse: [] })).toEqual([]);
      },
    );

    withStore('a write probe writes', async ({ store }) => {
      await expect(store.probeWrite()).resolves.toBeUndefined();
      await expect(store.probeWrite()).resolves.toBeUndefined();
    });

    withStore(
      'the master key id: recorded by the first start, kept for the next, replaced by a rotation',
      async ({ store, reopen }) => {
        expect(await store.masterKeyId('k1')).toBe('k1');
        expect(await store.masterKeyId('k2')).toBe('k1');
        const again = await reopen();
        expect(await again.masterKeyId('k3')).toBe('k1');
        await again.rewrap([], 'k2');
        expect(await again.masterKeyId('k3')).toBe('k2');
        await again.close();
      },
    );

    withStore(
      'credentials: sealed bytes kept exactly, upserted, listed, rewrapped, removed',
      async ({ store }) => {
        const row = credential('crm', 'api-key', Buffer.from([0, 1, 2, 255, 254]));
        await store.putCredential(row);
        await store.putCredential(credential('crm', 'Basic', Buffer.from('b')));
        await store.putCredential(credential('hr', 'api-key', Buffer.from('h')));
        const got = await store.getCredential('crm', 'api-key');
        expect(got).toMatchObject({
          kind: 'secret',
          meta: { username: 'ada', n: 1 },
          keyId: 'k1',
          updatedBy: 'ada',
        });
        expect(Buffer.compare(got!.data, row.data)).toBe(0);
        expect(Buffer.compare(got!.wrappedKey, row.wrappedKey)).toBe(0);
        await store.putCredential({ ...row, kind: 'basic', data: Buffer.from('new'), updatedBy: 'bob' });
        expect(await store.getCredential('crm', 'api-key')).toMatchObject({
          kind: 'basic',
          updatedBy: 'bob',
        });
        expect((await store.listCredentials('crm')).map((c) => c.key)).toEqual(['Basic', 'api-key']);
        expect((await store.allCredentials()).map((c) => `${c.solution}/${c.key}`)).toEqual([
          'crm/Basic',
          'crm/api-key',
          'hr/api-key',
        ]);
        await store.rewrap(
          [
            { solution: 'crm', key: 'api-key', keyId: 'k2', wrappedKey: Buffer.from('w2') },
            { solution: 'hr', key: 'api-key', keyId: 'k2', wrappedKey: Buffer.from('w3') },
          ],
          'k2',
        );
        const rewrapped = await store.getCredential('hr', 'api-key');
        expect(rewrapped?.keyId).toBe('k2');
        expect(rewrapped?.wrappedKey.toString()).toBe('w3');
        expect((await store.getCredential('crm', 'Basic'))?.keyId).toBe('k1');
        expect(await store.deleteCredential('crm', 'api-key')).toBe(true);
        expect(await store.deleteCredential('crm', 'api-key')).toBe(false);
        expect(await store.getCredential('crm', 'api-key')).toBeUndefined();
      },
    );

    withStore(
      'audit: appended in batches, newest first, per solution, filtered, limited',
      async ({ store }) => {
        const entry = (n: number, over: Partial<AuditEntry> = {}): AuditEntry => ({
          at: `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`,
          actor: 'ada',
          solution: 'crm',
          action: 'execute',
          target: n % 2 ? 'rest-get-a' : 'rest-get-b',
          outcome: n % 3 ? 'ok' : 'REMOTE_ERROR',
          correlationId: `c-${n}`,
          durationMs: n * 1.5,
          ...over,
        });
        await store.audit([]);
        await store.audit(Array.from({ length: 10 }, (_, i) => entry(i + 1)));
        await store.audit([
          entry(11, { solution: 'hr' }),
          entry(12, { detail: '{"title":"Busy"}', durationMs: null }),
        ]);
        const all = await store.listAudit('crm', 100);
        expect(all.map((e) => e.correlationId)).toEqual([
          'c-12',
          'c-10',
          'c-9',
          'c-8',
          'c-7',
          'c-6',
          'c-5',
          'c-4',
          'c-3',
          'c-2',
          'c-1',
        ]);
        expect(all[0]).toMatchObject({ detail: '{"title":"Busy"}', durationMs: null, actor: 'ada' });
        expect(all[1]).toMatchObject({ detail: null, durationMs: 15 });
        expect((await store.listAudit('crm', 3)).map((e) => e.correlationId)).toEqual([
          'c-12',
          'c-10',
          'c-9',
        ]);
        expect(
          (await store.listAudit('crm', 100, { outcome: 'REMOTE_ERROR' })).map((e) => e.correlationId),
        ).toEqual(['c-12', 'c-9', 'c-6', 'c-3']);
        expect(
          (await store.listAudit('crm', 100, { target: 'rest-get-a', outcome: 'ok' })).map(
            (e) => e.correlationId,
          ),
        ).toEqual(['c-7', 'c-5', 'c-1']);
        expect(await store.listAudit('crm', 100, { correlationId: 'c-11' })).toEqual([]);
        expect((await store.listAudit('hr', 100)).map((e) => e.correlationId)).toEqual(['c-11']);
        // The platform's own events: no solution.
        await store.audit([
          entry(13, { solution: null, action: 'sign-in', actor: 'bob' }),
          entry(14, { solution: null, action: 'denied', actor: 'anonymous' }),
        ]);
        expect((await store.listAudit(null, 100)).map((e) => e.correlationId)).toEqual(['c-14', 'c-13']);
        expect((await store.listAudit(null, 100, { action: 'sign-in' })).map((e) => e.actor)).toEqual([
          'bob',
        ]);
        expect((await store.listAudit(null, 100, { actor: 'anonymous' })).map((e) => e.action)).toEqual([
          'denied',
        ]);
        expect(await store.listAudit('crm', 100, { action: 'sign-in' })).toEqual([]);
        // A kind of entries: any of some actions, or none of them.
        await store.audit([entry(15, { action: 'publish', outcome: 'ok' }), entry(16, { action: 'call' })]);
        expect(
          (await store.listAudit('crm', 4, { actions: ['execute', 'call'] })).map((e) => e.correlationId),
        ).toEqual(['c-16', 'c-12', 'c-10', 'c-9']);
        expect(
          (await store.listAudit('crm', 100, { notActions: ['execute', 'call'] })).map((e) => e.action),
        ).toEqual(['publish']);
        expect(
          await store.listAudit('crm', 100, { notActions: ['execute', 'call'], outcome: 'REMOTE_ERROR' }),
        ).toEqual([]);
      },
    );

    withStore(
      'audit retention: removes in small batches only what is past the age or the count, keeps the rest and says so',
      async ({ store }) => {
        const day = 86_400_000;
        const start = Date.UTC(2026, 0, 1);
        // One entry a day for 30 days, written in the order of their days, in two batches.
        const entries: AuditEntry[] = Array.from({ length: 30 }, (_, d) => ({
          at: new Date(start + d * day).toISOString(),
          actor: 'ada',
          solution: d % 2 ? 'crm' : null,
          action: 'execute',
          target: `day-${d}`,
          outcome: 'ok',
          correlationId: `c-${d}`,
          durationMs: 1,
        }));
        await store.audit(entries.slice(0, 20));
        await store.audit(entries.slice(20));
        const clock = recordingClock(start + 29 * day);
        const removed: Array<[string, number]> = [];
        const retention = new AuditRetention({
          store,
          settings: { days: 10, maxRows: 0 },
          clock,
          removed: (reason, count) => removed.push([reason, count]),
          audit: (added) => store.audit(added),
          batch: 7,
        });
        const days = async () =>
          [...(await store.listAudit(null, 100)), ...(await store.listAudit('crm', 100))]
            .filter((e) => e.action === 'execute')
            .map((e) => Number(e.target!.slice(4)))
            .sort((a, b) => a - b);
        // 10 days at day 29: days 19 and later are within; day 19 is at the cutoff itself (kept).
        expect(await retention.sweep()).toBe(19);
        expect(await days()).toEqual(Array.from({ length: 11 }, (_, i) => 19 + i));
        // In batches of at most 7, each counted.
        expect(removed).toEqual([
          ['age', 7],
          ['age', 7],
          ['age', 5],
        ]);
        // The removal is in the platform's audit, by retention.
        const said = await store.listAudit(null, 1, { action: 'audit.remove' });
        expect(said[0]).toMatchObject({ actor: 'retention', target: '19 entries older than 10 days' });
        // Nothing more to remove: nothing removed, nothing said.
        expect(await retention.sweep()).toBe(0);
        expect(await store.listAudit(null, 100, { action: 'audit.remove' })).toHaveLength(1);
        // A day later, one more (day 19; day 20 is now at the cutoff).
        clock.advance(day);
        expect(await retention.sweep()).toBe(1);
        expect((await days())[0]).toBe(20);

        // By count: the newest 4 entries kept whatever their age (the two of retention's own
        // entries among them, written last); the age rule is off.
        const byCount = new AuditRetention({
          store,
          settings: { days: 0, maxRows: 4 },
          clock,
          removed: (reason, count) => removed.push([reason, count]),
          batch: 3,
        });
        removed.length = 0;
        expect(await byCount.sweep()).toBe(8);
        expect(removed).toEqual([
          ['rows', 3],
          ['rows', 3],
          ['rows', 2],
        ]);
        const left = [...(await store.listAudit(null, 100)), ...(await store.listAudit('crm', 100))];
        expect(left).toHaveLength(4);
        expect(await days()).toEqual([28, 29]);
        expect(await store.auditFloor(4)).not.toBeNull();
        expect(await store.auditFloor(5)).toBeNull();
        expect(await byCount.sweep()).toBe(0);
      },
    );

    withStore('state survives a reopen; a second store on it sees the first one’s writes', async (opened) => {
      await opened.store.createUser({
        id: 'u1',
        name: 'ada',
        role: 'admin',
        passwordHash: null,
        solutions: [],
      });
      await opened.store.addVersion('crm', { f: 'x' }, 'ada', 'd');
      const second = await opened.reopen();
      try {
        expect(await second.userByName('ada')).toMatchObject({ id: 'u1' });
        await second.addVersion('crm', { f: 'y' }, 'ada', 'd2');
        expect((await opened.store.currentVersion('crm'))?.version).toBe(2);
      } finally {
        await second.close();
      }
    });

    withStore('changes are told to listeners: a new version, and any change of access', async ({ store }) => {
      const heard: StoreChange[] = [];
      const stop = store.onChange((change) => heard.push(change));
      await store.createUser({ id: 'u1', name: 'ada', role: 'author', passwordHash: null, solutions: [] });
      await store.addVersion('crm', { f: 'x' }, 'ada', 'd');
      await store.createToken({ id: 't1', userId: 'u1', name: 'ci' }, 'h1');
      await store.revokeToken('t1');
      await store.updateUser('u1', { role: 'user' });
      await store.addMembership('u1', 'hr');
      await store.deleteUser('u1');
      // At once for this store's own listeners (a notification echoed back may come on top).
      expect(heard.filter((c, i) => i === 0 || JSON.stringify(c) !== JSON.stringify(heard[i - 1]))).toEqual([
        { kind: 'access' },
        { kind: 'version', solution: 'crm' },
        { kind: 'access' },
      ]);
      expect(heard.filter((c) => c.kind === 'access').length).toBeGreaterThanOrEqual(6);
      stop();
      const count = heard.length;
      await store.addVersion('crm', { f: 'y' }, 'ada', 'd2');
      expect(heard.length).toBe(count);
    });

    withStore(
      'allowed targets: added and removed per solution, once each, told to listeners, seen by another store',
      async (opened) => {
        const { store } = opened;
        const heard: StoreChange[] = [];
        const stop = store.onChange((change) => heard.push(change));
        expect(await store.allowedTargets()).toEqual({});
        expect(await store.changeAllowedTarget('crm', '10.0.0.5:8080', true)).toBe(true);
        expect(await store.changeAllowedTarget('crm', '10.0.0.5:8080', true)).toBe(false);
        expect(await store.changeAllowedTarget('crm', 'api.internal', true)).toBe(true);
        expect(await store.changeAllowedTarget('hr', 'api.internal', false)).toBe(false);
        expect(await store.allowedTargets()).toEqual({ crm: ['10.0.0.5:8080', 'api.internal'] });
        expect(heard.filter((c) => c.kind === 'targets').length).toBeGreaterThanOrEqual(2);
        stop();
        const second = await opened.reopen();
        try {
          expect(await second.changeAllowedTarget('crm', '10.0.0.5:8080', false)).toBe(true);
          expect(await second.changeAllowedTarget('crm', 'api.internal', false)).toBe(true);
          expect(await store.allowedTargets()).toEqual({});
        } finally {
          await second.close();
        }
      },
    );

    withStore(
      'allowed targets: changes from two stores at once are all kept (each waits for the other)',
      async (opened) => {
        const { store } = opened;
        const second = await opened.reopen();
        try {
          const hosts = Array.from({ length: 12 }, (_, i) => `10.0.0.${i + 1}`);
          const added = await Promise.all(
            hosts.map((host, i) => (i % 2 ? second : store).changeAllowedTarget('crm', host, true)),
          );
          expect(added).toEqual(hosts.map(() => true));
          expect([...(await store.allowedTargets()).crm!].sort()).toEqual([...hosts].sort());
        } finally {
          await second.close();
        }
      },
    );

    withStore(
      'rate limits: counts added per key and window; a new window when the last ended',
      async ({ store }) => {
        const t = 1_800_000_000_000;
        expect(await store.rateLimitAdd('token:a', 1, 60_000, t)).toEqual({
          count: 1,
          resetAtMs: t + 60_000,
        });
        expect(await store.rateLimitAdd('token:a', 3, 60_000, t + 10)).toEqual({
          count: 4,
          resetAtMs: t + 60_000,
        });
        expect(await store.rateLimitAdd('token:b', 2, 60_000, t + 20)).toEqual({
          count: 2,
          resetAtMs: t + 60_020,
        });
        const many = await Promise.all(
          Array.from({ length: 5 }, () => store.rateLimitAdd('token:a', 1, 60_000, t + 30)),
        );
        expect(many.map((h) => h.count).sort((x, y) => x - y)).toEqual([5, 6, 7, 8, 9]);
        expect(await store.rateLimitAdd('token:a', 2, 60_000, t + 60_000)).toEqual({
          count: 2,
          resetAtMs: t + 120_000,
        });
      },
    );

    withStore(
      'exclusive: one holder of a name at a time, in turn; other names do not wait',
      async ({ store }) => {
        const log: string[] = [];
        let release!: () => void;
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        const first = store.exclusive('oauth:a', async () => {
          log.push('first in');
          await held;
          log.push('first out');
          return 1;
        });
        await expect.poll(() => log).toEqual(['first in']);
        const second = store.exclusive('oauth:a', async () => {
          log.push('second in');
          return 2;
        });
        const failing = store
          .exclusive('oauth:a', async () => {
            throw new Error('refused');
          })
          .catch((error: Error) => error.message);
        // Another name runs while `oauth:a` is held.
        expect(await store.exclusive('oauth:b', async () => 'b')).toBe('b');
        expect(log).toEqual(['first in']);
        release();
        expect(await first).toBe(1);
        expect(await second).toBe(2);
        expect(await failing).toBe('refused');
        expect(log).toEqual(['first in', 'first out', 'second in']);
        // A failed holder leaves the lock free.
        expect(await store.exclusive('oauth:a', async () => 3)).toBe(3);
      },
    );

    withStore('a schema migrated by a newer restfn is refused with STORE_SCHEMA_NEWER', async (opened) => {
      await opened.bumpSchema();
      await expect(opened.reopen()).rejects.toMatchObject({ code: 'STORE_SCHEMA_NEWER' });
    });
  });
}

const NOW = '2500-01-01T00:00:00.000Z';

function session(userId: string, created: string, expires: string) {
  return { userId, csrfToken: `csrf-${userId}`, created, expires };
}

function credential(solution: string, key: string, data: Buffer): CredentialRow {
  return {
    solution,
    key,
    kind: 'secret',
    meta: { username: 'ada', n: 1 },
    keyId: 'k1',
    wrappedKey: Buffer.from([9, 8, 7]),
    data,
    updated: '2026-01-01T00:00:00.000Z',
    updatedBy: 'ada',
  };
}
