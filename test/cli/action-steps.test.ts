import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { actionSolution } from '../helpers/action-solution.js';
import { runCli } from '../helpers/cli.js';
import { customersApi } from '../helpers/queue.js';
import { tempSolution } from '../helpers/temp-solution.js';

async function setup() {
  const api = await customersApi([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
  const root = tempSolution(actionSolution(api.url));
  const restfn = (...args: string[]) => runCli([...args, '--solution', root]);
  const rows = () => {
    const conn = new Database(join(root, '.restfn', 'local.db'), { readonly: true });
    try {
      return (conn.prepare('SELECT data FROM [customers] ORDER BY id').all() as Array<{ data: string }>).map(
        (r) => JSON.parse(r.data),
      );
    } finally {
      conn.close();
    }
  };
  return { api, restfn, rows };
}

describe('restfn action: every data action, each step printed', () => {
  it("-p name=value gives a global action's parameters (and -p action.parameters.name=value the same); each step is a line", async () => {
    const { api, restfn, rows } = await setup();
    const list = await restfn('action', 'full-refresh', '-p', 'jig.inputs.rename=Grace');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr.replace(/command [0-9a-f-]{36}/, 'command <id>')).toBe(
      [
        'restfn: full-refresh: action.action-list',
        'restfn:   full-refresh: action.execute-action',
        "restfn:     refresh-customers: action.sync-entities: 'customers' 1 record from rest-get-customers, 'regions' 0 records",
        'restfn:   full-refresh: action.execute-action',
        "restfn:     rename-customer: 'customers' record 'c-1' updated locally and sent (command <id>)",
        'restfn:       notification (Customer renamed: The new name is saved): a step for a screen; nothing to do here',
        'restfn:   action.go-to (list-customers): a step for a screen; nothing to do here',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(list.stdout)).toMatchObject({
      type: 'action.action-list',
      steps: [{}, {}, { ranHere: false }],
    });
    expect(api.customers.get('c-1')?.name).toBe('Grace');

    const renamed = await restfn('action', 'rename-customer', '-p', 'id=c-1', '-p', 'name=Lin');
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(rows()).toEqual([{ id: 'c-1', name: 'Lin', region: 'eu' }]);
    const again = await restfn(
      'action',
      'rename-customer',
      '-p',
      'action.parameters.id=c-1',
      '-p',
      'action.parameters.name=Mo',
    );
    expect(again.code, again.stderr).toBe(0);
    expect(api.customers.get('c-1')?.name).toBe('Mo');
  });

  it("a list that reported a failure exits with that failure's code, after printing what ran", async () => {
    const { restfn } = await setup();
    const r = await restfn('action', 'best-effort');
    expect(r.code).toBe(2); // RECORD_NOT_FOUND: usage
    expect(r.stderr).toContain('restfn:   best-effort: action.execute-action: failed: RECORD_NOT_FOUND');
    expect(r.stderr).toContain("refresh-customers: action.sync-entities: 'customers' 1 record");
    expect(r.stderr).toContain('1 of 2 actions failed');
  });
});
