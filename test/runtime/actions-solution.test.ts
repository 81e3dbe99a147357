import { describe, expect, it } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { validateSolution } from '../../src/definition/validate.js';
import { isTempId } from '../../src/expression/functions.js';
import { failed, failure } from '../../src/runtime/action.js';
import { actionSolution } from '../helpers/action-solution.js';
import { customersApi, screen } from '../helpers/queue.js';
import { syncSetup } from '../helpers/sync.js';

async function setup(seed: Array<Record<string, unknown>> = [{ id: 'c-1', name: 'Ada', region: 'eu' }]) {
  const api = await customersApi(seed);
  const { runtime, store, root } = syncSetup(actionSolution(api.url));
  return { api, runtime, store, root, rows: (table = 'customers') => store.rows(table) };
}

describe('actions as whole solutions write them', () => {
  it('validate accepts every action type and key; the older componentId form is a warning pointing to type', async () => {
    const { root } = await setup();
    const { diagnostics, errors } = await validateSolution(loadSolution(root, { displayBase: root }));
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(errors).toBe(0);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'DEPRECATED_KEY',
        file: 'actions/older-rename.platform',
        line: 1,
        message: expect.stringContaining("write 'type: action.execute-entity' instead"),
      }),
    ]);
  });

  it('a global action reads its parameters; a required one missing is refused; onSuccess { title } is a screen step', async () => {
    const { api, runtime, rows } = await setup();
    await runtime.sync('customers');
    const result = await runtime.action('rename-customer', {
      action: { parameters: { id: 'c-1', name: 'Grace' } },
    });
    expect(result.command?.state).toBe('done');
    expect(api.customers.get('c-1')?.name).toBe('Grace');
    expect(rows()).toEqual([{ id: 'c-1', name: 'Grace', region: 'eu' }]);
    expect(result.next).toEqual({
      type: 'notification',
      ranHere: false,
      title: 'Customer renamed',
      description: 'The new name is saved',
    });
    await expect(
      runtime.action('rename-customer', { action: { parameters: { id: 'c-1' } } }),
    ).rejects.toMatchObject({
      code: 'PARAMETER_REQUIRED',
      message: expect.stringContaining("needs parameter 'name'"),
    });
    await expect(
      runtime.action('rename-customer', { action: { parameters: { id: 'c-1', name: 'x', nmae: 'y' } } }),
    ).rejects.toMatchObject({
      code: 'PARAMETER_UNKNOWN',
      message: expect.stringContaining("did you mean 'name'"),
    });
  });

  it('queueOperation as an expression: replace for a temp id (the updates collapse), add for a real one', async () => {
    const { api, runtime } = await setup();
    await runtime.sync('customers');
    await api.offline();
    const created = await runtime.action('create-customer', screen(undefined, { name: 'Kim', region: 'eu' }));
    const temp = created.record!;
    expect(isTempId(temp)).toBe(true);
    for (const name of ['K1', 'K2'])
      await runtime.action(
        'rename-customer',
        { action: { parameters: { id: temp, name } } },
        { push: false },
      );
    for (const name of ['A1', 'A2'])
      await runtime.action(
        'rename-customer',
        { action: { parameters: { id: 'c-1', name } } },
        { push: false },
      );
    const queued = runtime.queuedCommands().map((c) => [c.type, c.record === temp ? 'temp' : c.record]);
    expect(queued).toEqual([
      ['create', 'temp'],
      ['update', 'temp'],
      ['update', 'c-1'],
      ['update', 'c-1'],
    ]);
  });

  it('a sequential list runs execute-action steps in order: sync-entities fills the tables, when skips, go-to is a screen step', async () => {
    const { api, runtime, rows, store } = await setup([
      { id: 'c-1', name: 'Ada' },
      { id: 'c-2', name: 'Bo' },
    ]);
    const result = await runtime.action('full-refresh', {});
    expect(rows()).toEqual([
      { id: 'c-1', name: 'Ada' },
      { id: 'c-2', name: 'Bo' },
    ]);
    expect(store.hasTable('regions')).toBe(true);
    expect(result.error).toBeUndefined();
    expect(result.steps).toEqual([
      expect.objectContaining({
        type: 'action.execute-action',
        steps: [
          expect.objectContaining({
            action: 'refresh-customers',
            type: 'action.sync-entities',
            synced: [
              { entity: 'customers', function: 'rest-get-customers', pages: 1, records: 2 },
              { entity: 'regions', pages: 0, records: 0 },
            ],
          }),
        ],
      }),
      { action: 'full-refresh', type: 'action.execute-action', skipped: 'its when is false' },
      { type: 'action.go-to', ranHere: false, title: 'list-customers' },
    ]);
    expect(api.requests.map((r) => r.method)).toEqual(['GET']);

    // With the input the list's second action runs: the global action with its parameters.
    const renamed = await runtime.action('full-refresh', { jig: { inputs: { rename: 'Grace' } } });
    expect(api.customers.get('c-1')?.name).toBe('Grace');
    expect(renamed.steps?.[1]).toMatchObject({
      steps: [{ action: 'rename-customer', command: { state: 'done' } }],
    });
  });

  it('a sequential list stops at a failure; a list that is not sequential runs the rest and reports the failure', async () => {
    const { api, runtime } = await setup();
    const strict = await runtime.action('strict-list', {});
    expect(strict.error).toMatchObject({
      code: 'RECORD_NOT_FOUND',
      message: expect.stringContaining('actions[0] failed, so the sequential list stopped'),
    });
    expect(strict.steps).toHaveLength(1);
    expect(api.requests).toEqual([]);

    const loose = await runtime.action('best-effort', {});
    expect(loose.error).toMatchObject({
      code: 'RECORD_NOT_FOUND',
      message: expect.stringContaining('1 of 2 actions failed (actions[0])'),
    });
    expect(loose.steps).toHaveLength(2);
    expect(api.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('execute-entities: each record of an expression in order, functionParameters reading @ctx.current.item, one push', async () => {
    const { api, runtime, rows } = await setup([
      { id: 'c-1', name: 'ada' },
      { id: 'c-2', name: 'bo' },
    ]);
    await runtime.sync('customers');
    const result = await runtime.action('shout-all', {
      jig: {
        inputs: {
          customers: [
            { id: 'c-2', name: 'bo' },
            { id: 'c-1', name: 'ada' },
          ],
        },
      },
    });
    expect(result.steps?.map((s) => ('record' in s ? s.record : undefined))).toEqual(['c-2', 'c-1']);
    expect(api.requests.filter((r) => r.method === 'PATCH')).toEqual([
      expect.objectContaining({ url: '/customers/c-2', body: { name: 'BO' } }),
      expect.objectContaining({ url: '/customers/c-1', body: { name: 'ADA' } }),
    ]);
    expect(result.push?.sent).toBe(2);
    expect(rows()).toEqual([
      { id: 'c-1', name: 'ada' },
      { id: 'c-2', name: 'bo' },
    ]);
  });

  it('DATA_PROVIDER_LOCAL changes the local table only; submit-form creates from the form and runs its onSuccess list', async () => {
    const { api, runtime, rows } = await setup([]);
    const note = await runtime.action('draft-note', screen(undefined, { note: 'call back' }));
    expect(note.command).toBeUndefined();
    expect(rows('notes')).toEqual([{ id: note.record, text: 'call back' }]);
    expect(runtime.queuedCommands()).toEqual([]);
    expect(api.requests).toEqual([]);

    const added = await runtime.action('add-customer', {
      components: { 'new-customer': { state: { data: { name: 'Lin', region: 'ap' } } } },
    });
    expect(added.command?.state).toBe('done');
    expect(api.requests[0]).toMatchObject({ method: 'POST', body: { name: 'Lin', region: 'ap' } });
    const id = [...api.customers.keys()][0]!;
    expect(added.next).toEqual([
      { type: 'notification', ranHere: false, title: 'Customer added' },
      expect.objectContaining({
        action: 'refresh-customers',
        synced: [
          expect.objectContaining({ entity: 'customers', records: 1 }),
          expect.objectContaining({ entity: 'regions' }),
        ],
      }),
      { type: 'goBack', ranHere: false, title: 'previous' },
    ]);
    expect(rows()).toEqual([{ id, name: 'Lin', region: 'ap' }]);
    await expect(runtime.action('add-customer', {})).rejects.toMatchObject({
      message: expect.stringContaining('components.new-customer.state.data'),
    });
  });

  it('confirm: the question is a screen step, onConfirmed runs', async () => {
    const { api, runtime, rows } = await setup();
    await runtime.sync('customers');
    const result = await runtime.action('remove-customer', { jig: { inputs: { customer: 'c-1' } } });
    expect(result.steps).toEqual([
      {
        type: 'action.confirm',
        ranHere: false,
        title: 'Remove c-1?',
        description: 'It goes from the service too',
      },
      expect.objectContaining({ method: 'delete', command: expect.objectContaining({ state: 'done' }) }),
    ]);
    expect(api.customers.has('c-1')).toBe(false);
    expect(rows()).toEqual([]);
  });

  it("queue actions by id; clear-queue given a record's id drops its queued commands and keeps its row", async () => {
    const { api, runtime, rows } = await setup();
    await runtime.sync('customers');
    await api.offline();
    for (const name of ['X', 'Y'])
      await runtime.action(
        'rename-customer',
        { action: { parameters: { id: 'c-1', name } } },
        { push: false },
      );
    expect(runtime.queuedCommands()).toHaveLength(2);
    const cleared = await runtime.action('discard-changes', screen({ id: 'c-1' }));
    expect(cleared.commands).toHaveLength(2);
    expect(runtime.queuedCommands()).toEqual([]);
    expect(rows()).toEqual([{ id: 'c-1', name: 'Y', region: 'eu' }]);
    await expect(runtime.action('discard-changes', screen({ id: 'nothing' }))).rejects.toMatchObject({
      code: 'COMMAND_NOT_FOUND',
    });

    await api.online();
    api.failNext(422);
    const failed = await runtime.action('rename-customer', {
      action: { parameters: { id: 'c-1', name: 'Z' } },
    });
    expect(failed.command?.state).toBe('failed');
    const retried = await runtime.action('retry-command', screen({ id: failed.command!.id }));
    expect(retried.commands).toEqual([failed.command!.id]);
  });

  it('onError runs when the command fails: its notification is a screen step and its data action runs', async () => {
    const { api, runtime, rows } = await setup();
    await runtime.sync('customers');
    api.failNext(422);
    const result = await runtime.action('save-or-note', screen({ id: 'c-1' }, { name: 'Q' }));
    expect(result.command?.state).toBe('failed');
    expect(result.next).toEqual([
      { type: 'notification', ranHere: false, title: 'Not saved' },
      expect.objectContaining({ entity: 'notes', method: 'create' }),
    ]);
    expect(rows('notes')).toEqual([expect.objectContaining({ text: 'c-1 was not saved' })]);
  });

  it("an onSuccess that fails is in the result, not thrown: the action's temp id and command stay told; a sequential list stops there", async () => {
    const api = await customersApi([]);
    const { runtime, store } = syncSetup({
      ...actionSolution(api.url),
      'actions/add-list.platform': `action:
  type: action.action-list
  options:
    isSequential: true
    actions:
      - type: action.execute-action
        options:
          action: add-and-refresh
          parameters:
            name: Lin
      - type: action.execute-action
        options:
          action: refresh-customers
`,
    });
    await api.offline();
    const result = await runtime.action('add-and-refresh', {
      action: { parameters: { name: 'Kim' } },
      jig: { inputs: { region: 'eu' } },
    });
    expect(result).toMatchObject({
      record: expect.stringMatching(/^_tmp_/),
      command: { state: 'waiting' },
      next: { type: 'action.execute-action', error: { code: 'NETWORK_ERROR' } },
    });
    expect(store.rows('customers')).toEqual([{ id: result.record, name: 'Kim' }]);
    expect(failed(result)).toBe(true);
    expect(failure(result)).toMatchObject({ code: 'NETWORK_ERROR' });

    const list = await runtime.action('add-list', {});
    expect(list.error).toMatchObject({
      code: 'NETWORK_ERROR',
      message: expect.stringContaining('actions[0] failed, so the sequential list stopped'),
    });
    expect(list.steps).toHaveLength(1);
  });

  it('a single value for an array parameter goes as a one-item list', async () => {
    const { api, runtime } = await setup([]);
    const result = await runtime.action('tag-customer', { action: { parameters: { tag: 'vip' } } });
    expect(result.command?.state).toBe('done');
    expect(api.requests[0]).toMatchObject({ method: 'POST', body: { tags: ['vip'] } });
  });

  it('the older componentId form runs as its type', async () => {
    const { runtime, rows } = await setup();
    await runtime.sync('customers');
    await runtime.action('older-rename', screen({ id: 'c-1' }, { name: 'Old' }));
    expect(rows()).toEqual([{ id: 'c-1', name: 'Old', region: 'eu' }]);
  });
});
