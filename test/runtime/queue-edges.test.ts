import { describe, expect, it } from 'vitest';
import { processIdentity } from '../../src/local/process-alive.js';
import { COMMAND_QUEUE_TABLE } from '../../src/local/stage.js';
import { encodings } from '../helpers/encodings.js';
import { json, testServer } from '../helpers/http-server.js';
import { customersApi, queueSolution, screen } from '../helpers/queue.js';
import { secretRuntime } from '../helpers/secret-runtime.js';
import { seed, syncSetup } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

/**
 * The queue where a careless implementation goes wrong: ids that need escaping in JSON, commands
 * that name other records created offline, local writes after the service accepted, handlers that
 * keep retrying, and handler-written rows that could keep a credential.
 */

/** An action creating a note that refers to a customer (by the id the screen shows). */
const NOTE_FILES = (url: string) => ({
  'functions/rest-create-note.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${url}/notes
parameters:
  customer:
    location: body
    type: string
  text:
    location: body
    type: string
`,
  'actions/add-note.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: notes
  method: create
  function: rest-create-note
  data:
    customer: =@ctx.current.item.id
    text: first call
  parameters:
    customer: =@ctx.record.customer
    text: =@ctx.record.text
`,
});

/** The customers API's PATCH function with something more (`operations:`, `error:`). */
function updateFunction(url: string, more: string): string {
  return `provider: DATA_PROVIDER_REST
method: PATCH
url: ${url}/customers/{id}
parameters:
  id: { location: path, type: string, required: true }
  name: { location: body, type: string }
${more}`;
}

async function setup(extra: (url: string) => Record<string, string> = () => ({})) {
  const api = await customersApi();
  const notes: unknown[] = [];
  api.intercept = (req, res) => {
    if (!req.url.startsWith('/notes')) return false;
    notes.push(req.body);
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...(req.body as object), id: `n-${notes.length}` }));
    return true;
  };
  const { runtime, store } = syncSetup({
    ...queueSolution(api.url),
    ...NOTE_FILES(api.url),
    ...extra(api.url),
  });
  return { api, runtime, store, notes, rows: (table = 'customers') => store.rows(table) };
}

describe('queue: temporary ids and references', () => {
  it.each([
    ['with a quote and a backslash', 'c"7\\x'],
    ['a number', 4711],
  ])(
    'a real id %s replaces the temp id in rows, references and queued payloads, as valid JSON',
    async (_, realId) => {
      const { api, runtime, rows, notes } = await setup();
      const previous = api.intercept!;
      api.intercept = (req, res) => {
        if (req.method !== 'POST' || req.url !== '/customers') return previous(req, res);
        const created = { ...(req.body as object), id: realId };
        api.customers.set(String(realId), created);
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify(created));
        return true;
      };
      await api.offline();
      const created = await runtime.action(
        'create-customer',
        screen(undefined, { name: 'Ada', region: 'eu' }),
      );
      const tempId = created.record!;
      await runtime.action('add-note', screen({ id: tempId }));
      await runtime.action('update-customer', screen({ id: tempId }, { name: 'Ada L.' }));
      await api.online();
      const pushed = await runtime.pushQueue({ ignoreSchedule: true });
      expect(pushed.outcomes.map((o) => o.error)).toEqual([undefined, undefined, undefined]);
      expect(pushed).toMatchObject({ sent: 3, failed: 0, remaining: 0 });
      // The note was sent with the real id (as text: the parameter's type is string).
      expect(notes).toEqual([{ customer: String(realId), text: 'first call' }]);
      expect(api.requests.at(-1)).toMatchObject({
        method: 'PATCH',
        url: `/customers/${encodeURIComponent(String(realId))}`,
      });
      expect(rows()).toEqual([{ id: realId, name: 'Ada L.', region: 'eu' }]);
      expect(rows('notes')).toEqual([expect.objectContaining({ customer: realId, text: 'first call' })]);
    },
  );

  it("a command naming another record's temp id waits for that record's create, and never sends the temp id", async () => {
    const { api, runtime, notes } = await setup();
    api.failNext(422, 1, { error: 'region unknown' });
    const created = await runtime.action('create-customer', screen(undefined, { name: 'Ada', region: 'xx' }));
    expect(created.command?.state).toBe('failed');
    const note = await runtime.action('add-note', screen({ id: created.record }));
    // Held back behind the failed create: not sent, still queued.
    expect(note.command?.state).toBe('queued');
    expect(notes).toEqual([]);

    // The create is dropped: the note can never get a real id for its customer. It fails, unsent.
    runtime.changeQueue('action.delete-queue-command', [created.command!.id]);
    const pushed = await runtime.pushQueue({ ignoreSchedule: true });
    expect(pushed.outcomes).toEqual([
      expect.objectContaining({
        id: note.command!.id,
        state: 'failed',
        error: expect.objectContaining({ code: 'TEMP_ID_UNRESOLVED', notSent: true }),
      }),
    ]);
    expect(pushed.outcomes[0]!.error!.message).toContain(created.record!);
    expect(notes).toEqual([]);
    expect(JSON.stringify(api.requests)).not.toContain('_tmp_');
  });

  it('a create whose answer has no id is done, says so, and later commands naming the record are not sent', async () => {
    const { api, runtime, notes } = await setup();
    const previous = api.intercept!;
    api.intercept = (req, res) => {
      if (req.method !== 'POST' || req.url !== '/customers') return previous(req, res);
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true }));
      return true;
    };
    const created = await runtime.action('create-customer', screen(undefined, { name: 'Ada', region: 'eu' }));
    expect(created.command).toMatchObject({ state: 'done', error: { code: 'CREATED_WITHOUT_ID' } });
    const note = await runtime.action('add-note', screen({ id: created.record }));
    expect(note.command).toMatchObject({ state: 'failed', error: { code: 'TEMP_ID_UNRESOLVED' } });
    expect(notes).toEqual([]);
  });
});

describe('queue: after the service accepted', () => {
  it('a create whose new id a stale local row held: the new record replaces it, with RECORD_REPLACED', async () => {
    const { runtime, store, rows } = await setup();
    // A row left from before (deleted on the service, which now gives its id out again).
    seed(store, 'customers', [{ id: 'c-1000', name: 'Stale', region: 'us', extra: 'old' }]);
    const created = await runtime.action('create-customer', screen(undefined, { name: 'Ada', region: 'eu' }));
    expect(created).toMatchObject({
      record: 'c-1000',
      row: { id: 'c-1000', name: 'Ada', region: 'eu' },
      command: { state: 'done', error: { code: 'RECORD_REPLACED' } },
    });
    expect(created.command?.error?.message).toContain("'c-1000'");
    expect(rows()).toEqual([{ id: 'c-1000', name: 'Ada', region: 'eu' }]);
  });

  it('a change still queued for the stale row is not sent to the new record that took its id: it fails unsent', async () => {
    const { api, runtime, store, rows } = await setup();
    seed(store, 'customers', [{ id: 'c-1000', name: 'Stale' }]);
    await api.offline();
    await runtime.action('create-customer', screen(undefined, { name: 'Ada', region: 'eu' }));
    const edit = await runtime.action('update-customer', screen({ id: 'c-1000' }, { name: 'Edited-old' }));
    await api.online();
    const pushed = await runtime.pushQueue({ ignoreSchedule: true });
    expect(pushed.outcomes.map((o) => [o.type, o.state, o.error?.code])).toEqual([
      ['create', 'done', 'RECORD_REPLACED'],
    ]);
    expect(pushed.outcomes[0]!.error!.message).toContain(`failed unsent (${edit.command!.id})`);
    expect(api.customers.get('c-1000')).toEqual({ id: 'c-1000', name: 'Ada', region: 'eu' });
    expect(api.requests.filter((r) => r.method === 'PATCH')).toEqual([]);
    expect(runtime.queuedCommands()).toEqual([
      expect.objectContaining({
        id: edit.command!.id,
        state: 'failed',
        error: expect.objectContaining({ code: 'RECORD_REPLACED', notSent: true }),
      }),
    ]);
    expect(rows()).toEqual([{ id: 'c-1000', name: 'Ada', region: 'eu' }]);
  });

  it("an action's text values are typed as the function declares them; one that cannot be is refused before anything is written", async () => {
    const api = await customersApi();
    const { runtime, store } = syncSetup({
      'functions/rest-create-item.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${api.url}/customers
parameters:
  name: { location: body, type: string }
  price: { location: body, type: number }
  stock: { location: body, type: int }
  active: { location: body, type: boolean }
`,
      'actions/create-item.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: items
  method: create
  function: rest-create-item
  data:
    name: =@ctx.components.name.state.value
    price: =@ctx.components.price.state.value
    stock: =@ctx.components.stock.state.value
    active: =@ctx.components.active.state.value
  parameters:
    name: =@ctx.record.name
    price: =@ctx.record.price
    stock: =@ctx.record.stock
    active: =@ctx.record.active
`,
    });
    const fields = { name: '9', price: '9.5', stock: '3', active: 'true' };
    const done = await runtime.action('create-item', screen(undefined, fields), { push: false });
    expect(done.row).toMatchObject({ name: '9', price: 9.5, stock: 3, active: true });
    await expect(
      runtime.action('create-item', screen(undefined, { ...fields, stock: 'three' }), { push: false }),
    ).rejects.toMatchObject({
      code: 'PARAMETER_TYPE',
      message: expect.stringContaining(
        "action 'create-item': data.stock is 'three', but function 'rest-create-item' parameter 'stock' must be a number",
      ),
    });
    expect(store.rows('items')).toHaveLength(1);
    expect(runtime.queuedCommands()).toHaveLength(1);
  });

  it("an update changes only the fields the screen gave: one left empty keeps the row's value", async () => {
    const { api, runtime, rows } = await setup();
    api.customers.set('c-1', { id: 'c-1', name: 'Ada', region: 'eu' });
    await runtime.sync('customers');
    // The screen gives no name (its field untouched): the form's value is undefined.
    const result = await runtime.action('update-customer', {
      current: { item: { id: 'c-1' } },
      components: {},
    });
    expect(result.command).toMatchObject({ state: 'done' });
    expect(rows()).toEqual([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
  });

  it("a failure in the function's own operations leaves the command done (not sent again), with LOCAL_WRITE_FAILED", async () => {
    const { api, runtime } = await setup((url) => ({
      'functions/rest-update-customer.platform': updateFunction(
        url,
        "operations:\n  - type: operation.upsert-merge\n    table: customers\n    records: =$error('the operation cannot be built')\n",
      ),
    }));
    api.customers.set('c-1', { id: 'c-1', name: 'Ada' });
    await runtime.sync('customers');
    const result = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Grace' }));
    expect(result.command).toMatchObject({ state: 'done', error: { code: 'LOCAL_WRITE_FAILED' } });
    expect(result.command?.error?.message).toContain('the operation cannot be built');
    expect(runtime.queuedCommands()).toEqual([]);
    await runtime.pushQueue({ ignoreSchedule: true });
    expect(api.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });
});

describe('queue: error handlers', () => {
  it("a handler's retries are spent by the call: the command then fails, and a later push does not start them again", async () => {
    const { api, runtime } = await setup((url) => ({
      'functions/rest-update-customer.platform': updateFunction(
        url,
        'error:\n  - when: =@ctx.response.status = 409\n    retry:\n      delay: 10\n      maxRetries: 2\n',
      ),
    }));
    api.customers.set('c-1', { id: 'c-1', name: 'Ada' });
    await runtime.sync('customers');
    api.failNext(409, 10);
    const result = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Grace' }));
    expect(result.command).toMatchObject({ state: 'failed', error: { status: 409 } });
    expect(result.command?.error?.reason).toContain('retries are used up');
    expect(api.requests.filter((r) => r.method === 'PATCH')).toHaveLength(3);
    await runtime.pushQueue({ ignoreSchedule: true });
    expect(api.requests.filter((r) => r.method === 'PATCH')).toHaveLength(3);
    expect(runtime.queuedCommands()[0]).toMatchObject({ state: 'failed', attempts: 1 });
  });

  it("records a handler writes from an echoed response keep the credential masked, in the table and the file's bytes", async () => {
    const secret = 'Sk"9\\live&key+Ü=/z';
    const server = await testServer((req, res) => {
      json(res, 422, {
        error: 'bad key',
        echo: req.headers['x-api-key'],
        note: `key was ${req.headers['x-api-key']}`,
      });
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
error:
  - when: =@ctx.response.status = 422
    operations:
      - type: operation.upsert-merge
        records: '={"id": @ctx.commandId, "body": @ctx.response.body, "raw": $string(@ctx.response.body)}'
`,
      'actions/save.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: things
  method: create
  function: rest-save
  data:
    name: thing
`,
    });
    const { runtime, store, close, bytes: storedBytes } = secretRuntime(root, secret);
    const result = await runtime.action('save');
    expect(result.command?.state).toBe('failed');
    const [row] = store.rows('things_error');
    expect(row).toMatchObject({ id: result.command!.id, body: { error: 'bad key', echo: '***' } });
    await close();
    const bytes = storedBytes();
    for (const form of encodings(secret)) {
      expect(JSON.stringify(row)).not.toContain(form);
      expect(bytes).not.toContain(form);
    }
  });
});

describe('actions: onSuccess', () => {
  it('an onSuccess that cannot run is reported beside what the action already did', async () => {
    const { api, runtime, rows } = await setup(() => ({
      'actions/update-and-open.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: customers
  method: update
  function: rest-update-customer
  data:
    id: =@ctx.current.item.id
    name: =@ctx.components.name.state.value
  parameters:
    id: =@ctx.record.id
    name: =@ctx.record.name
  onSuccess: open-custmer
`,
    }));
    api.customers.set('c-1', { id: 'c-1', name: 'Ada' });
    await runtime.sync('customers');
    const result = await runtime.action('update-and-open', screen({ id: 'c-1' }, { name: 'Grace' }));
    expect(result).toMatchObject({
      command: { state: 'done' },
      next: {
        action: 'update-and-open',
        type: 'action.execute-action',
        error: {
          code: 'ACTION_NOT_FOUND',
          message: expect.stringMatching(/^action 'open-custmer' does not exist/),
        },
      },
    });
    expect(rows()).toEqual([{ id: 'c-1', name: 'Grace' }]);
  });
});

describe('actions: what a caller gets wrong', () => {
  it('create of an id that is there, delete of one that is not, and a queue action without an id are refused, changing nothing', async () => {
    const { api, runtime, rows } = await setup(() => ({
      'actions/create-with-id.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: customers
  method: create
  function: rest-create-customer
  data:
    id: =@ctx.current.item.id
    name: New
`,
      'actions/retry-nothing.platform': `type: action.retry-queue-command
options:
  commandId: =@ctx.current.item.id
`,
    }));
    api.customers.set('c-1', { id: 'c-1', name: 'Ada' });
    await runtime.sync('customers');
    await expect(runtime.action('create-with-id', screen({ id: 'c-1' }))).rejects.toMatchObject({
      code: 'RECORD_EXISTS',
    });
    await expect(runtime.action('delete-customer', screen({ id: 'c-9' }))).rejects.toMatchObject({
      code: 'RECORD_NOT_FOUND',
      message: expect.stringContaining("no record 'c-9' in table 'customers' to delete"),
    });
    const noId = await runtime.action('retry-nothing', screen(undefined)).catch((e: Error) => e);
    expect(noId).toMatchObject({ code: 'COMMAND_NOT_FOUND' });
    expect((noId as Error).message).toContain('commandId gave no command id');
    expect((noId as Error).message).not.toContain("'undefined'");
    expect(rows()).toEqual([{ id: 'c-1', name: 'Ada' }]);
    expect(runtime.queuedCommands()).toEqual([]);
  });
});

describe('queue: rate limits and the idempotency key', () => {
  it("429: the call's spec 7.5 retries wait what Retry-After asks, then the command waits as long; sent once later, one key throughout", async () => {
    const { api, runtime } = await setup();
    api.customers.set('c-1', { id: 'c-1', name: 'Ada' });
    await runtime.sync('customers');
    let limited = 0;
    api.intercept = (req, res) => {
      if (req.method !== 'PATCH' || limited === 4) return false;
      limited++;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end('{"error":"slow down"}');
      return true;
    };
    const result = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Grace' }));
    // The first attempt and 3 retries (spec 7.5), then the queue takes over.
    expect(limited).toBe(4);
    expect(result.command).toMatchObject({ state: 'waiting', error: { status: 429 } });
    const [waiting] = runtime.queuedCommands();
    expect(waiting).toMatchObject({ state: 'waiting', attempts: 1 });
    expect(Date.parse(waiting!.nextAttempt!) - Date.parse(waiting!.updated)).toBe(7000);
    expect(api.customers.get('c-1')?.name).toBe('Ada');
    // An automatic push leaves it until then; someone asking sends it.
    expect((await runtime.pushQueue()).sent).toBe(0);
    expect(await runtime.pushQueue({ ignoreSchedule: true })).toMatchObject({ sent: 1, remaining: 0 });
    expect(api.changes).toBe(1);
    expect(api.customers.get('c-1')?.name).toBe('Grace');
    const keys = api.requests.filter((r) => r.method === 'PATCH').map((r) => r.idempotencyKey);
    expect(keys).toEqual(Array(5).fill(result.command!.id));
  });

  it('a function that sets its own Idempotency-Key keeps it: the command id is not added beside it', async () => {
    const { api, runtime } = await setup((url) => ({
      'functions/rest-update-customer.platform': updateFunction(
        url,
        "  Idempotency-Key: { location: header, type: string, value: ='mine-' & @ctx.parameters.id }\n",
      ),
    }));
    api.customers.set('c-1', { id: 'c-1', name: 'Ada' });
    await runtime.sync('customers');
    const result = await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Grace' }));
    expect(result.command?.state).toBe('done');
    expect(api.requests.filter((r) => r.method === 'PATCH').map((r) => r.idempotencyKey)).toEqual([
      'mine-c-1',
    ]);
  });
});

describe('queue: a push that died', () => {
  it('a claim left by a pid that now belongs to another process (a reboot, a container) is resumed, not held forever', async () => {
    const { api, runtime, store } = await setup();
    api.customers.set('c-1', { id: 'c-1', name: 'Ada' });
    await runtime.sync('customers');
    await api.offline();
    await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Grace' }));
    await api.online();
    // Pid 1 runs, but not as the process that claimed the command: its start differs.
    const [boot] = processIdentity(1).split('/');
    store.db
      .prepare(`UPDATE [${COMMAND_QUEUE_TABLE}] SET state = 'processing', worker = ?`)
      .run(`1:${boot}/0:old-push`);
    expect(runtime.queuedCommands()).toMatchObject([{ state: 'processing' }]);
    expect(await runtime.pushQueue({ ignoreSchedule: true })).toMatchObject({ sent: 1, remaining: 0 });
    expect(api.customers.get('c-1')?.name).toBe('Grace');
    // A claim of a process that still runs as itself is left alone.
    await api.offline();
    await runtime.action('update-customer', screen({ id: 'c-1' }, { name: 'Ida' }));
    await api.online();
    store.db
      .prepare(`UPDATE [${COMMAND_QUEUE_TABLE}] SET state = 'processing', worker = ?`)
      .run(`1:${processIdentity(1)}:running-push`);
    expect(await runtime.pushQueue({ ignoreSchedule: true })).toMatchObject({ sent: 0, remaining: 1 });
  });
});
