import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { customersApi, queueSolution } from '../helpers/queue.js';
import { tempSolution } from '../helpers/temp-solution.js';

/** A solution over the customers API in a temp folder, and a reader of its local database. */
async function setup(
  seed: Array<Record<string, unknown>> = [],
  extra: (url: string) => Record<string, string> = () => ({}),
) {
  const api = await customersApi(seed);
  const root = tempSolution({ ...queueSolution(api.url), ...extra(api.url) });
  const db = join(root, '.restfn', 'local.db');
  const restfn = (...args: string[]) => runCli([...args, '--solution', root]);
  const read = <T>(sql: string): T[] => {
    const conn = new Database(db, { readonly: true });
    try {
      return conn.prepare(sql).all() as T[];
    } finally {
      conn.close();
    }
  };
  const rows = (table = 'customers') =>
    read<{ data: string }>(`SELECT data FROM [${table}] ORDER BY id`).map((r) => JSON.parse(r.data));
  return { api, root, restfn, rows, read };
}

describe('restfn action and restfn queue', () => {
  it('offline: the change is queued (exit 0); online: queue push sends it, row and service agree', async () => {
    const { api, restfn, rows } = await setup([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
    expect((await restfn('sync', 'customers')).code).toBe(0);
    await api.offline();
    const offline = await restfn(
      'action',
      'update-customer',
      '-p',
      'current.item.id=c-1',
      '-p',
      'components.name.state.value=Grace',
    );
    expect(offline.code).toBe(0);
    expect(offline.stderr).toContain("'customers' record 'c-1' updated locally; queued as command");
    const queued = JSON.parse((await restfn('queue', 'list', '--format', 'json')).stdout);
    expect(queued).toMatchObject([
      { state: 'waiting', type: 'update', record: 'c-1', attempts: 1, error: { code: 'NETWORK_ERROR' } },
    ]);
    expect((await restfn('queue')).stdout).toContain('waiting');

    await api.online();
    const pushed = await restfn('queue', 'push', '--format', 'json');
    expect(pushed.code).toBe(0);
    expect(JSON.parse(pushed.stdout)).toEqual({ sent: 1, waiting: 0, failed: 0, remaining: 0 });
    expect(api.customers.get('c-1')).toEqual({ id: 'c-1', name: 'Grace', region: 'eu' });
    expect(rows()).toEqual([{ id: 'c-1', name: 'Grace', region: 'eu' }]);
    expect(await restfn('queue')).toMatchObject({ stdout: '', stderr: 'restfn: the queue is empty\n' });
  });

  it("offline, an update queued behind a create: the alert names the update's call, then the create it waits behind", async () => {
    const { api, root, restfn, rows } = await setup();
    await api.offline();
    const created = await restfn('action', 'create-customer', '-p', 'components.name.state.value=Ada');
    expect(created.code, created.stderr).toBe(0);
    const create = JSON.parse(created.stdout).command.id as string;
    // The create's own alert names its own call.
    expect(created.stderr).toContain(`restfn: alert [toast] Service unreachable: POST ${api.url}/customers`);
    // Its next attempt is due now (instead of waiting out its backoff), so the update's push tries it.
    const db = new Database(join(root, '.restfn', 'local.db'));
    db.prepare("UPDATE [_commandQueue] SET nextAttempt = '2000-01-01T00:00:00.000Z'").run();
    db.close();
    const [{ id }] = rows() as [{ id: string }];
    const updated = await restfn(
      'action',
      'update-customer',
      '-p',
      `current.item.id=${id}`,
      '-p',
      'components.name.state.value=Grace',
    );
    expect(updated.code, updated.stderr).toBe(0);
    const update = JSON.parse(updated.stdout).command.id as string;
    const alert = updated.stderr.split('\n').find((l) => l.startsWith('restfn: alert'));
    expect(alert).toBe(
      `restfn: alert [toast] Service unreachable: update-customer's PATCH ${api.url}/customers/{id} (command ${update}) is queued behind command ${create} (rest-create-customer), which was not sent: POST ${api.url}/customers failed: connection refused (is the service running?)`,
    );
    expect(updated.stderr).toContain(`updated locally; queued as command ${update}`);
  });

  it('restfn sync pushes the queue first and says so', async () => {
    const { api, restfn, rows } = await setup([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
    await restfn('sync', 'customers');
    const queued = await restfn(
      'action',
      'update-customer',
      '--no-push',
      '-p',
      'current.item.id=c-1',
      '-p',
      'components.name.state.value=Grace',
    );
    expect(JSON.parse(queued.stdout).command.state).toBe('queued');
    expect(api.customers.get('c-1')?.name).toBe('Ada');
    const synced = await restfn('sync', 'customers');
    expect(synced.code).toBe(0);
    expect(synced.stderr).toContain('restfn: pushed the command queue first: 1 sent, 0 left in the queue\n');
    expect(api.customers.get('c-1')?.name).toBe('Grace');
    expect(rows()).toEqual([{ id: 'c-1', name: 'Grace', region: 'eu' }]);
  });

  it('422: exit 1, the error row id is the command id; retry after the server is fixed; delete and clear by id', async () => {
    const { api, restfn, rows } = await setup([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
    await restfn('sync', 'customers');
    api.failNext(422, 1, { error: 'name too short' });
    const bad = await restfn(
      'action',
      'update-customer',
      '-p',
      'current.item.id=c-1',
      '-p',
      'components.name.state.value=A',
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /restfn: error COMMAND_FAILED: .*answered 422.*restfn queue retry [0-9a-f-]{36}/,
    );
    const commandId = JSON.parse(bad.stdout).command.id;
    expect(rows('customers_error')).toEqual([expect.objectContaining({ id: commandId, status: 422 })]);
    // The local change stays.
    expect(rows()[0].name).toBe('A');

    expect((await restfn('queue', 'retry', commandId)).code).toBe(0);
    expect(JSON.parse((await restfn('queue', 'push', '--format', 'json')).stdout)).toMatchObject({
      sent: 1,
      remaining: 0,
    });
    expect(api.customers.get('c-1')?.name).toBe('A');
    expect(rows('customers_error')).toEqual([]);

    // Two queued changes to the record: clear takes the first and the one behind it; delete takes one.
    await api.offline();
    const ids: string[] = [];
    for (const name of ['B', 'C', 'D']) {
      const r = await restfn(
        'action',
        'update-customer',
        '--no-push',
        '-p',
        'current.item.id=c-1',
        '-p',
        `components.name.state.value=${name}`,
      );
      ids.push(JSON.parse(r.stdout).command.id);
    }
    // A unique start of an id will do, as in git.
    expect((await restfn('queue', 'delete', ids[2]!.slice(0, 8))).stderr).toBe(
      `restfn: deleted: ${ids[2]}\n`,
    );
    expect((await restfn('queue', 'clear', ids[0]!)).stderr).toBe(`restfn: cleared: ${ids[0]}, ${ids[1]}\n`);
    const missing = await restfn('queue', 'retry', 'no-such-id');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('COMMAND_NOT_FOUND');

    // A push that leaves a command failed says so with a coded error and what to do.
    await api.online();
    await restfn(
      'action',
      'update-customer',
      '--no-push',
      '-p',
      'current.item.id=c-1',
      '-p',
      'components.name.state.value=E',
    );
    api.failNext(422, 1, { error: 'name too short' });
    const pushed = await restfn('queue', 'push', '--format', 'json');
    expect(pushed.code).toBe(1);
    expect(JSON.parse(pushed.stdout)).toMatchObject({ sent: 0, failed: 1, remaining: 1 });
    expect(pushed.stderr).toMatch(
      /restfn: error COMMAND_FAILED: 1 command failed for good .*it stays in the queue.*restfn queue retry /,
    );
  });

  it('--context JSON, --user-* and --db reach the action; the temp id is replaced; an onSuccess screen step is printed', async () => {
    const { api, root, restfn } = await setup([], (url) => ({
      'functions/rest-create-owned.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${url}/customers
parameters:
  name: { location: body, type: string }
  owner: { location: body, type: string }
`,
      'actions/create-owned.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: customers
  method: create
  function: rest-create-owned
  data:
    name: =@ctx.components.name.state.value
    owner: =@ctx.user.email
  parameters:
    name: =@ctx.record.name
    owner: =@ctx.record.owner
  onSuccess:
    type: action.go-back
`,
    }));
    const db = join(root, 'elsewhere.db');
    const r = await restfn(
      'action',
      'create-owned',
      '--context',
      '{"components":{"name":{"state":{"value":"Ada"}}}}',
      '--user-email',
      'ada@example.test',
      '--db',
      db,
    );
    expect(r.code, r.stderr).toBe(0);
    const [realId] = api.customers.keys();
    expect(api.customers.get(realId!)).toEqual({ id: realId, name: 'Ada', owner: 'ada@example.test' });
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      record: realId,
      row: { id: realId, name: 'Ada', owner: 'ada@example.test' },
      command: { state: 'done' },
      next: { type: 'action.go-back', ranHere: false },
    });
    expect(r.stderr).toContain(
      `'customers' record '${realId}' created locally and sent (command ${out.command.id})`,
    );
    expect(r.stderr).toContain('restfn:   action.go-back: a step for a screen; nothing to do here\n');
    // The row is in the --db file, not in the default database.
    const conn = new Database(db, { readonly: true });
    try {
      const stored = conn.prepare('SELECT id, data FROM [customers]').all() as Array<{
        id: string;
        data: string;
      }>;
      expect(stored.map((row) => ({ id: row.id, data: JSON.parse(row.data) }))).toEqual([
        { id: realId, data: { id: realId, name: 'Ada', owner: 'ada@example.test' } },
      ]);
    } finally {
      conn.close();
    }
    expect(existsSync(join(root, '.restfn', 'local.db'))).toBe(false);
  });

  it('a --db that does not exist is an error, not a new empty queue; without --db nothing queued is an empty queue', async () => {
    const { root, restfn } = await setup();
    const typo = join(root, '.restfn', 'locl.db');
    for (const verb of ['list', 'push']) {
      const r = await restfn('queue', verb, '--db', typo);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`restfn: error DATABASE_NOT_FOUND: no local database at ${typo}`);
    }
    expect(existsSync(typo)).toBe(false);
    const unknown = await restfn('queue', 'lsit');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown queue command 'lsit': use list, push, retry, delete or clear");
    const empty = await restfn('queue', 'list');
    expect(empty).toMatchObject({ code: 0, stdout: '', stderr: 'restfn: the queue is empty\n' });
    expect(existsSync(join(root, '.restfn', 'local.db'))).toBe(false);
  });

  it('kill -9 while a create is being sent: the next push resumes it with the same idempotency key; one remote change', async () => {
    const { api, root, restfn, rows, read } = await setup();
    // The service applies the POST (and remembers its key), then the CLI dies before it hears back.
    let killed = false;
    const run = startCli([
      'action',
      'create-customer',
      '-p',
      'components.name.state.value=Ada',
      '-p',
      'components.region.state.value=eu',
      '--solution',
      root,
    ]);
    let answered!: () => void;
    const applied = new Promise<void>((resolve) => {
      answered = resolve;
    });
    api.intercept = async (req, res) => {
      if (killed || req.method !== 'POST') return false;
      killed = true;
      run.child.kill('SIGKILL');
      await run.done;
      // Now the service applies it (and answers a client that is gone): its answer ends the wait below.
      const end = res.end.bind(res);
      res.end = ((...args: Parameters<typeof res.end>) => {
        answered();
        return end(...args);
      }) as typeof res.end;
      return false;
    };
    const dead = await run.done;
    expect(dead.code).toBe(null);
    const [stuck] = read<{ state: string; id: string; record: string }>(
      'SELECT state, id, record FROM [_commandQueue]',
    );
    expect(stuck?.state).toBe('processing');
    expect(rows()).toEqual([{ id: stuck!.record, name: 'Ada', region: 'eu' }]);

    await applied;
    expect(api.changes).toBe(1);
    const pushed = await restfn('queue', 'push', '--format', 'json');
    expect(JSON.parse(pushed.stdout)).toMatchObject({ sent: 1, remaining: 0 });
    const posts = api.requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.idempotencyKey)).toEqual([stuck!.id, stuck!.id]);
    // The resend got the first answer again: still one change, one record.
    expect(api.changes).toBe(1);
    expect(api.customers.size).toBe(1);
    const [realId] = api.customers.keys();
    expect(rows()).toEqual([{ id: realId, name: 'Ada', region: 'eu' }]);
  });
});
