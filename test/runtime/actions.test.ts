import { describe, expect, it } from 'vitest';
import { isTempId } from '../../src/expression/functions.js';
import { failure } from '../../src/runtime/action.js';
import { encodings } from '../helpers/encodings.js';
import { json, testServer } from '../helpers/http-server.js';
import { customersApi, queueSolution, screen } from '../helpers/queue.js';
import { secretRuntime } from '../helpers/secret-runtime.js';
import { syncSetup } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

/** A solution over the customers API, with a real SQLite file and a recording clock. */
async function setup(seed: Array<Record<string, unknown>> = [], extra: Record<string, string> = {}) {
  const api = await customersApi(seed);
  const { runtime, store } = syncSetup({ ...queueSolution(api.url), ...extra });
  const rows = (table = 'customers') => store.rows(table);
  return { api, runtime, store, rows };
}

describe('actions: the local change and the queued remote call', () => {
  it('create offline, then online: the temp id is replaced in the row, in references and in queued commands; one POST', async () => {
    const { api, runtime, store, rows } = await setup([], {
      // Another table whose rows reference the customer by its id.
      'actions/add-note.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: notes
  method: create
  data:
    customer: =@ctx.current.item.id
    text: first call
`,
    });
    await api.offline();
    const created = await runtime.action('create-customer', screen(undefined, { name: 'Ada', region: 'eu' }));
    expect(created.command?.state).toBe('waiting');
    expect(created.push?.stopped).toBe('offline');
    const tempId = created.record!;
    expect(isTempId(tempId)).toBe(true);
    expect(rows()).toEqual([{ id: tempId, name: 'Ada', region: 'eu' }]);

    // Still offline: a note referencing the new customer, and an update of it (both wait behind the create).
    await runtime.action('add-note', screen({ id: tempId }));
    const updated = await runtime.action('update-customer', screen({ id: tempId }, { name: 'Ada L.' }));
    expect(updated.command?.state).toBe('queued');
    const queued = runtime.queuedCommands();
    expect(queued.map((c) => c.type)).toEqual(['create', 'update']);
    expect(queued[1]!.payload.parameters).toEqual({ id: tempId, name: 'Ada L.' });

    await api.online();
    const pushed = await runtime.pushQueue({ ignoreSchedule: true });
    expect(pushed).toMatchObject({ sent: 2, failed: 0, waiting: 0, remaining: 0 });
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    const realId = [...api.customers.keys()][0]!;
    expect(api.customers.get(realId)).toEqual({ id: realId, name: 'Ada L.', region: 'eu' });
    // The update went to the real id: the queued payload was rewritten.
    expect(api.requests.at(-1)).toMatchObject({ method: 'PATCH', url: `/customers/${realId}` });
    expect(rows()).toEqual([{ id: realId, name: 'Ada L.', region: 'eu' }]);
    expect(rows('notes')).toEqual([expect.objectContaining({ customer: realId, text: 'first call' })]);
    expect(JSON.stringify(store.db.prepare('SELECT * FROM [customers]').all())).not.toContain('_tmp_');
  });

  it('update online: the row and the service change together, the queue ends empty', async () => {
    const { api, runtime, rows } = await setup([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
    await runtime.sync('customers');
    const result = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Grace' }));
    expect(result.command).toMatchObject({
      state: 'done',
      output: { id: 'c-1', name: 'Grace', region: 'eu' },
    });
    expect(rows()).toEqual([{ id: 'c-1', name: 'Grace', region: 'eu' }]);
    expect(api.customers.get('c-1')?.name).toBe('Grace');
    expect(runtime.queuedCommands()).toEqual([]);
    // A non-idempotent call from the queue carries its command id as the idempotency key.
    expect(api.requests.at(-1)?.idempotencyKey).toBe(result.command?.id);
  });

  it('update of a record that is not there says so and changes nothing', async () => {
    const { runtime, rows } = await setup();
    await expect(
      runtime.action('update-customer', screen({ id: 'nobody' }, { name: 'x' })),
    ).rejects.toMatchObject({
      code: 'RECORD_NOT_FOUND',
    });
    expect(rows()).toEqual([]);
    expect(runtime.queuedCommands()).toEqual([]);
  });

  it('deleting a record that only exists locally drops its queued commands and calls nobody', async () => {
    const { api, runtime, rows } = await setup();
    await api.offline();
    const created = await runtime.action(
      'create-customer',
      screen(undefined, { name: 'Temp', region: 'us' }),
    );
    await runtime.action('update-customer', screen({ id: created.record }, { name: 'Temp 2' }));
    expect(runtime.queuedCommands()).toHaveLength(2);
    await api.online();
    const deleted = await runtime.action('delete-customer', screen({ id: created.record }));
    expect(deleted.command).toBeUndefined();
    expect(rows()).toEqual([]);
    expect(runtime.queuedCommands()).toEqual([]);
    expect(api.requests).toEqual([]);
  });

  it('503 then 200: the command waits with its attempt and next-attempt time, then goes once', async () => {
    const { api, runtime, rows } = await setup([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
    await runtime.sync('customers');
    api.failNext(503);
    const first = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Grace' }));
    expect(first.command?.state).toBe('waiting');
    const [waiting] = runtime.queuedCommands();
    expect(waiting).toMatchObject({
      state: 'waiting',
      attempts: 1,
      error: { code: 'REMOTE_ERROR', status: 503 },
    });
    // 1 s after the clock's now: the first backoff step.
    expect(Date.parse(waiting!.nextAttempt!) - Date.parse(waiting!.updated)).toBe(1000);
    // An automatic push before that time leaves it alone.
    expect((await runtime.pushQueue()).sent).toBe(0);
    expect(rows()[0]?.name).toBe('Grace');
    const second = await runtime.pushQueue({ ignoreSchedule: true });
    expect(second).toMatchObject({ sent: 1, remaining: 0 });
    expect(api.changes).toBe(1);
    expect(api.customers.get('c-1')?.name).toBe('Grace');
    const keys = api.requests.filter((r) => r.method === 'PATCH').map((r) => r.idempotencyKey);
    expect(keys).toEqual([first.command?.id, first.command?.id]);
  });

  it('422: failed, an error row whose id is the command id, the record held back; retry after fixing', async () => {
    const { api, runtime, rows } = await setup([
      { id: 'c-1', name: 'Ada', region: 'eu' },
      { id: 'c-2', name: 'Bob', region: 'us' },
    ]);
    await runtime.sync('customers');
    api.failNext(422, 1, { error: 'name too short' });
    const bad = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'A' }));
    expect(bad.command).toMatchObject({ state: 'failed', error: { status: 422 } });
    const commandId = bad.command!.id;
    const [errorRow] = rows('customers_error');
    expect(errorRow).toMatchObject({ id: commandId, commandId, record: 'c-1', status: 422, type: 'update' });

    // Held back: a later change to c-1 waits behind the failed one; c-2 is not held.
    const later = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Ada B.' }));
    expect(later.command?.state).toBe('queued');
    const other = await runtime.action('update-customer', screen({ id: 'c-2' }, { name: 'Bobby' }));
    expect(other.command?.state).toBe('done');
    expect(api.customers.get('c-1')?.name).toBe('Ada');

    // The server is fixed (nothing to fail any more); retry the failed command: both go, in order.
    expect(runtime.changeQueue('action.retry-queue-command', [commandId])).toEqual([commandId]);
    const pushed = await runtime.pushQueue();
    expect(pushed).toMatchObject({ sent: 2, remaining: 0 });
    const patches = api.requests.filter((r) => r.method === 'PATCH' && r.url === '/customers/c-1');
    expect(patches.map((r) => (r.body as { name: string }).name)).toEqual(['A', 'A', 'Ada B.']);
    expect(api.customers.get('c-1')?.name).toBe('Ada B.');
    expect(rows('customers_error')).toEqual([]);
  });

  it('a datasource reads the queue and the error table like any tables; a queue action on an error row drops its command', async () => {
    const { api, runtime, rows } = await setup([{ id: 'c-1', name: 'Ada', region: 'eu' }], {
      'datasources/failed-changes.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: customers
      function: rest-get-customers
  query: SELECT q.id, q.state, q.record, e.data FROM [_commandQueue] q JOIN [customers_error] e ON e.id = q.id
`,
      'actions/drop-change.platform':
        'type: action.delete-queue-command\noptions:\n  commandId: =@ctx.current.item.id\n',
    });
    // Named by a query before anything was queued: empty, not an error.
    expect((await runtime.sync('failed-changes')).rows).toEqual([]);
    api.failNext(422, 1, { error: 'name too short' });
    const bad = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'A' }));
    const commandId = bad.command!.id;
    const [shown] = (await runtime.sync('failed-changes')).rows as Array<Record<string, unknown>>;
    expect(shown).toMatchObject({
      id: commandId,
      state: 'failed',
      record: 'c-1',
      data: { id: commandId, commandId, status: 422 },
    });
    // The error screen's row is the item a queue action works on.
    expect((await runtime.action('drop-change', { current: { item: shown } })).commands).toEqual([commandId]);
    expect(runtime.queuedCommands()).toEqual([]);
    expect(rows('customers_error')).toEqual([]);
    expect((await runtime.sync('failed-changes')).rows).toEqual([]);
  });

  it('a push the caller stops puts the command back as queued, its attempt counted; the next push sends it', async () => {
    const { api, runtime } = await setup([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
    await runtime.sync('customers');
    const stop = new AbortController();
    api.intercept = () => {
      stop.abort();
      return false;
    };
    await expect(
      runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Grace' }), { signal: stop.signal }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
    expect(runtime.queuedCommands()).toMatchObject([{ state: 'queued', attempts: 1, worker: null }]);
    api.intercept = undefined;
    expect(await runtime.pushQueue()).toMatchObject({ sent: 1, remaining: 0 });
    expect(api.customers.get('c-1')?.name).toBe('Grace');
  });

  it('queue actions as action files: delete drops one command, clear drops it and the ones held behind it', async () => {
    const { api, runtime } = await setup([{ id: 'c-1', name: 'Ada', region: 'eu' }], {
      'actions/delete-command.platform':
        'type: action.delete-queue-command\noptions:\n  commandId: =@ctx.current.item.id\n',
      'actions/clear-commands.platform':
        'type: action.clear-queue\noptions:\n  commandId: =@ctx.current.item.id\n',
    });
    await runtime.sync('customers');
    await api.offline();
    const a = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'One' }));
    const b = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Two' }));
    const c = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Three' }));
    const deleted = await runtime.action('delete-command', screen({ id: b.command!.id }));
    expect(deleted.commands).toEqual([b.command!.id]);
    expect(runtime.queuedCommands().map((q) => q.id)).toEqual([a.command!.id, c.command!.id]);
    const cleared = await runtime.action('clear-commands', screen({ id: a.command!.id }));
    expect(cleared.commands).toEqual([a.command!.id, c.command!.id]);
    expect(runtime.queuedCommands()).toEqual([]);
    await expect(runtime.action('delete-command', screen({ id: 'no-such' }))).rejects.toMatchObject({
      code: 'COMMAND_NOT_FOUND',
    });
  });

  it('queueOperation replace collapses the queued commands of the record into the newest', async () => {
    const { api, runtime } = await setup([{ id: 'c-1', name: 'Ada', region: 'eu' }], {
      'actions/rename.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: customers
  method: update
  function: rest-update-customer
  queueOperation: replace
  data:
    id: =@ctx.current.item.id
    name: =@ctx.components.name.state.value
  parameters:
    id: =@ctx.record.id
    name: =@ctx.record.name
`,
    });
    await runtime.sync('customers');
    await api.offline();
    for (const name of ['a', 'b', 'c']) await runtime.action('rename', screen({ id: 'c-1' }, { name }));
    const queued = runtime.queuedCommands();
    expect(queued).toHaveLength(1);
    expect(queued[0]!.payload.parameters).toEqual({ id: 'c-1', name: 'c' });
  });

  it('sync pushes first; a row whose change could not be sent keeps its local state through the pull', async () => {
    const { api, runtime, rows } = await setup([
      { id: 'c-1', name: 'Ada', region: 'eu' },
      { id: 'c-2', name: 'Bob', region: 'us' },
    ]);
    await runtime.sync('customers');
    await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Local' }), { push: false });
    // The remote changes both meanwhile; the queued change to c-1 fails with 503 in the sync's push.
    api.customers.get('c-1')!.region = 'remote';
    api.customers.get('c-2')!.name = 'Remote';
    api.failNext(503);
    await runtime.sync('customers');
    expect(api.requests.map((r) => r.method)).toEqual(['GET', 'PATCH', 'GET']);
    expect(rows()).toEqual([
      { id: 'c-1', name: 'Local', region: 'eu' },
      { id: 'c-2', name: 'Remote', region: 'us' },
    ]);
    expect(runtime.queuedCommands()[0]?.state).toBe('waiting');
    // Once the command went through, the next sync takes the service's version of the row.
    await runtime.pushQueue({ ignoreSchedule: true });
    await runtime.sync('customers');
    expect(rows()[0]).toEqual({ id: 'c-1', name: 'Local', region: 'remote' });
    expect(runtime.queuedCommands()).toEqual([]);
  });

  it('a whole-table replace keeps a row created offline and leaves a row deleted offline deleted while their commands wait', async () => {
    const { api, runtime, rows } = await setup([
      { id: 'c-1', name: 'Ada', region: 'eu' },
      { id: 'c-2', name: 'Bob', region: 'us' },
    ]);
    await runtime.sync('customers');
    const created = await runtime.action(
      'create-customer',
      screen(undefined, { name: 'New', region: 'eu' }),
      {
        push: false,
      },
    );
    await runtime.action('delete-customer', screen({ id: 'c-2' }), { push: false });
    // The remote changes c-1 meanwhile; both queued commands get a 503 in the sync's push.
    api.customers.get('c-1')!.name = 'Remote';
    api.failNext(503, 2);
    await runtime.sync('customers');
    expect(api.requests.map((r) => r.method)).toEqual(['GET', 'POST', 'DELETE', 'GET']);
    // The pull replaced the table (c-1 is the service's), yet the new row stays and c-2 stays gone.
    expect(rows()).toEqual(
      [
        { id: 'c-1', name: 'Remote', region: 'eu' },
        { id: created.record, name: 'New', region: 'eu' },
      ].sort((a, b) => String(a.id).localeCompare(String(b.id))),
    );
    expect(runtime.queuedCommands().map((c) => c.state)).toEqual(['waiting', 'waiting']);
    // Once both went through, the next sync agrees with the service.
    expect(await runtime.pushQueue({ ignoreSchedule: true })).toMatchObject({ sent: 2, remaining: 0 });
    await runtime.sync('customers');
    const remote = [...api.customers.values()].sort((a, b) => String(a.id).localeCompare(String(b.id)));
    expect(remote.map((c) => c.name)).toEqual(['Remote', 'New']);
    expect(rows()).toEqual(remote);
  });
});

describe('actions: methods and onSuccess', () => {
  const extra = (url: string): Record<string, string> => ({
    'functions/rest-notify.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${url}/customers\nparameters:\n  name:\n    location: body\n    type: string\n`,
    'functions/rest-create-keep.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${url}/customers\nkeepTempIds: true\nparameters:\n  name:\n    location: body\n    type: string\n`,
    'actions/notify.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: customers
  method: functionCall
  function: rest-notify
  parameters:
    name: =@ctx.jig.inputs.name
`,
    'actions/save-customer.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: customers
  method: save
  function: rest-create-keep
  data:
    id: =@ctx.current.item.id
    name: =@ctx.components.name.state.value
  parameters:
    name: =@ctx.record.name
  onSuccess: notify
`,
    'actions/chain.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: customers
  method: update
  data:
    id: =@ctx.current.item.id
    name: =@ctx.components.name.state.value
  onSuccess:
    type: action.execute-entity
    options:
      provider: DATA_PROVIDER_REST
      entity: customers
      method: update
      data:
        id: =@ctx.current.item.id
        seen: true
      onSuccess:
        type: action.go-back
`,
    'actions/loop.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: customers
  method: functionCall
  function: rest-notify
  onSuccess: loop
`,
  });

  it('functionCall calls the function with no local change', async () => {
    const api = await customersApi();
    const { runtime, store } = syncSetup({ ...queueSolution(api.url), ...extra(api.url) });
    const result = await runtime.action('notify', { jig: { inputs: { name: 'hello' } } });
    expect(result.command).toMatchObject({ state: 'done', output: { name: 'hello' } });
    expect(result.record).toBeUndefined();
    expect(store.rows('customers')).toEqual([]);
    expect(api.requests).toEqual([expect.objectContaining({ method: 'POST', body: { name: 'hello' } })]);
  });

  it('save creates a missing record with a temp id; keepTempIds keeps the temp row beside the real one; onSuccess by file name runs next', async () => {
    const api = await customersApi();
    const { runtime, store } = syncSetup({ ...queueSolution(api.url), ...extra(api.url) });
    const result = await runtime.action('save-customer', screen(undefined, { name: 'Kim' }), {});
    const realId = [...api.customers.keys()][0]!;
    expect(result.record).toBe(realId);
    const rows = store.rows('customers');
    expect(rows).toHaveLength(2);
    expect(rows.filter((r) => isTempId(r.id))).toHaveLength(1);
    expect(rows.find((r) => r.id === realId)).toEqual({ id: realId, name: 'Kim' });
    // onSuccess: notify ran (a second POST, with no name from jig.inputs here).
    expect(result.next).toMatchObject({ action: 'notify', command: { state: 'done' } });
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
  });

  it('an onSuccess written in place runs; a screen step is recorded, not run; a chain that loops stops with a coded error', async () => {
    const api = await customersApi([{ id: 'c-1', name: 'Ada' }]);
    const { runtime, store } = syncSetup({ ...queueSolution(api.url), ...extra(api.url) });
    await runtime.sync('customers');
    const result = await runtime.action('chain', screen({ id: 'c-1' }, { name: 'Grace' }));
    expect(store.rows('customers')).toEqual([{ id: 'c-1', name: 'Grace', seen: true }]);
    expect(result.next).toMatchObject({ method: 'update', next: { type: 'action.go-back', ranHere: false } });
    // No function: a local change only, nothing queued.
    expect(result.command).toBeUndefined();
    expect(runtime.queuedCommands()).toEqual([]);
    // Each link ran (its call was made): the cycle is reported at the link that stopped it.
    const looped = await runtime.action('loop');
    expect(failure(looped)).toMatchObject({
      code: 'INVALID_DEFINITION',
      message: expect.stringContaining('a cycle'),
    });
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(8);
    await expect(runtime.action('no-such-action')).rejects.toMatchObject({ code: 'ACTION_NOT_FOUND' });
  });
});

describe('actions: secrets', () => {
  it('a credential the service echoes never reaches the queue, the error row or the database files', async () => {
    const secret = 'Sk"9\\live&key+Ü=/z';
    const server = await testServer((req, res) => {
      json(res, 422, { error: `bad key ${req.headers['x-api-key']}`, echo: req.headers['x-api-key'] });
    });
    const root = tempSolution({
      'functions/rest-save.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/things
parameters:
  x-api-key:
    location: header
    type: secret
    value: api-key
  name:
    location: body
    type: string
`,
      'actions/save.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: things
  method: create
  function: rest-save
  data:
    name: thing
  parameters:
    name: =@ctx.record.name
`,
    });
    const { runtime, store, close, bytes: storedBytes } = secretRuntime(root, secret);
    const result = await runtime.action('save');
    expect(result.command?.state).toBe('failed');
    expect(server.requests[0]?.headers['x-api-key']).toBe(secret);
    const shown = JSON.stringify([result, runtime.queuedCommands(), store.rows('things_error')]);
    await close();
    const bytes = storedBytes();
    for (const form of encodings(secret)) {
      expect(shown).not.toContain(form);
      expect(bytes).not.toContain(form);
    }
    // What the service said is kept for an error screen, with the echoed credential masked.
    expect(result.command?.error?.details).toContain('bad key');
    expect(JSON.parse(shown)[2][0].details).toContain('bad key');
  });
});
