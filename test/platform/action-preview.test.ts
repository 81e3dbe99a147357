import { describe, expect, it } from 'vitest';
import { actionSolution } from '../helpers/action-solution.js';
import { startPlatformProcess } from '../helpers/platform.js';
import { customersApi } from '../helpers/queue.js';

describe('action previews on the platform run every data action', () => {
  it('a list of global actions: sync-entities reads the service, the change is queued and not sent, screen steps are reported', async () => {
    const api = await customersApi([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const put = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: platform.adminToken,
      body: { files: actionSolution(api.url) },
    });
    expect(put.status, put.text).toBe(201);

    const answer = await platform.api('POST', '/api/v1/solutions/crm/actions/full-refresh/preview', {
      token: platform.adminToken,
      body: { context: { jig: { inputs: { rename: 'Grace' } } } },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.commands).toEqual([
      {
        type: 'update',
        entity: 'customers',
        record: 'c-1',
        function: 'rest-update-customer',
        parameters: { id: 'c-1', name: 'Grace' },
      },
    ]);
    expect(answer.body.steps).toEqual([
      { type: 'action.action-list', ranHere: true, action: 'full-refresh' },
      { type: 'action.execute-action', ranHere: true, action: 'full-refresh' },
      { type: 'action.sync-entities', ranHere: true, action: 'refresh-customers', records: 1 },
      { type: 'action.execute-action', ranHere: true, action: 'full-refresh' },
      {
        type: 'action.execute-entity',
        ranHere: true,
        action: 'rename-customer',
        entity: 'customers',
        record: 'c-1',
      },
      {
        type: 'notification',
        ranHere: false,
        title: 'Customer renamed',
        description: 'The new name is saved',
      },
      { type: 'action.go-to', ranHere: false, title: 'list-customers' },
    ]);
    // The sync read the service; the change was not sent.
    expect(api.requests.map((r) => r.method)).toEqual(['GET']);
    expect(api.customers.get('c-1')?.name).toBe('Ada');

    // A follow-up that fails is told among the steps; the queued change is still previewed.
    api.intercept = (req, res) => {
      if (req.method !== 'GET') return false;
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'bad page' }));
      return true;
    };
    const failing = await platform.api('POST', '/api/v1/solutions/crm/actions/add-and-refresh/preview', {
      token: platform.adminToken,
      body: { context: { action: { parameters: { name: 'Kim' } }, jig: { inputs: { region: 'eu' } } } },
    });
    expect(failing.status, failing.text).toBe(200);
    expect(failing.body.commands).toEqual([
      expect.objectContaining({ type: 'create', entity: 'customers', parameters: { name: 'Kim' } }),
    ]);
    expect(failing.body.steps).toEqual([
      expect.objectContaining({ type: 'action.execute-entity', ranHere: true, entity: 'customers' }),
      {
        type: 'action.execute-action',
        ranHere: true,
        action: 'add-and-refresh',
        error: { code: 'REMOTE_ERROR', message: expect.stringContaining('400') },
      },
    ]);
  });
});
