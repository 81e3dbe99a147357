import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { actionSolution } from '../helpers/action-solution.js';
import { runCli, startCli } from '../helpers/cli.js';
import { customersApi } from '../helpers/queue.js';
import { tempSolution } from '../helpers/temp-solution.js';

async function setup() {
  const api = await customersApi([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
  const root = tempSolution(actionSolution(api.url));
  const restfn = (...args: string[]) => runCli([...args, '--solution', root]);
  const rows = (table: string) => {
    const conn = new Database(join(root, '.restfn', 'local.db'), { readonly: true });
    try {
      return (
        conn.prepare(`SELECT id, data FROM [${table}] ORDER BY id`).all() as Array<{
          id: string;
          data: string;
        }>
      ).map((r) => ({ id: r.id, ...JSON.parse(r.data) }));
    } finally {
      conn.close();
    }
  };
  return { api, root, restfn, rows };
}

/** How many times `part` occurs in `text`. */
const count = (text: string, part: string) => text.split(part).length - 1;

describe('restfn action: follow-ups, their texts and their failures', () => {
  it('an onSuccess that fails is reported, not thrown: stdout has the temp id, the command and the failed follow-up; the exit is its code', async () => {
    const { api, restfn, rows } = await setup();
    // The create cannot reach the service (the connection drops: the command waits); the refresh
    // its onSuccess runs is refused for good (400: no retries, so no waiting here).
    api.intercept = (req, res) => {
      if (req.method === 'POST') res.socket?.destroy();
      else if (req.method === 'GET') {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'bad page' }));
      } else return false;
      return true;
    };
    const r = await restfn('action', 'add-and-refresh', '-p', 'name=Kim', '-p', 'jig.inputs.region=eu');
    expect(r.code, r.stderr).toBe(1);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({
      action: 'add-and-refresh',
      type: 'action.execute-entity',
      record: expect.stringMatching(/^_tmp_/),
      command: { state: 'waiting', error: { code: 'NETWORK_ERROR' } },
      next: { action: 'add-and-refresh', type: 'action.execute-action', error: { code: 'REMOTE_ERROR' } },
    });
    // The temp id a script needs is the local row's: the change is kept.
    expect(rows('customers').map((c) => c.id)).toContain(result.record);
    const lines = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('restfn: ') && !l.startsWith('restfn: retry'));
    expect(lines.slice(-3)).toEqual([
      expect.stringContaining(
        `add-and-refresh: 'customers' record '${result.record}' created locally; queued as command ${result.command.id}, not sent yet`,
      ),
      'restfn:   add-and-refresh: action.execute-action: failed',
      expect.stringMatching(
        /^restfn: error REMOTE_ERROR: action 'add-and-refresh' ran \(its command is waiting\), but its onSuccess failed: .*400/,
      ),
    ]);
    // The follow-ups after the failed one do not run.
    expect(r.stderr).not.toContain('notification');
    expect(r.stderr).not.toContain('action.go-to');
  });

  it('Ctrl-C during a follow-up: what ran is printed, the exit is INTERRUPTED (130)', async () => {
    const { api, root } = await setup();
    let arrived: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    // The refresh onSuccess runs never answers until the CLI is interrupted.
    api.intercept = (req) => {
      if (req.method !== 'GET') return false;
      arrived();
      return true;
    };
    const { child, done } = startCli([
      'action',
      'add-and-refresh',
      '-p',
      'name=Kim',
      '-p',
      'jig.inputs.region=eu',
      '--solution',
      root,
    ]);
    await held;
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
    expect(JSON.parse(r.stdout)).toMatchObject({ command: { state: 'done' }, next: { error: {} } });
    expect(r.stderr).toContain(
      "restfn: error INTERRUPTED: action interrupted: 'add-and-refresh' stopped at a later step",
    );
    expect(api.customers.size).toBe(2);
  });

  it("a notification's title and description and a screen step's linkTo are evaluated, in stdout and on stderr", async () => {
    const { restfn } = await setup();
    const r = await restfn('action', 'add-and-refresh', '-p', 'name=Kim', '-p', 'jig.inputs.region=eu');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).next).toEqual([
      expect.objectContaining({ type: 'action.execute-action' }),
      { type: 'notification', ranHere: false, title: 'Added Kim', description: 'Region EU' },
      { type: 'action.go-to', ranHere: false, title: 'customer-kim' },
    ]);
    expect(r.stderr).toContain(
      'restfn:   notification (Added Kim: Region EU): a step for a screen; nothing to do here\n',
    );
    expect(r.stderr).toContain(
      'restfn:   action.go-to (customer-kim): a step for a screen; nothing to do here\n',
    );
  });

  it('a single action whose failure onError handled says it once: its step line says failed, the error line why', async () => {
    const { restfn } = await setup();
    const r = await restfn('action', 'save-or-note', '-p', 'components.name.state.value=x');
    expect(r.code).toBe(2); // ACTION_RECORD_ID
    expect(count(r.stderr, "needs the record's id")).toBe(1);
    expect(r.stderr).toContain('restfn: save-or-note: action.execute-entity: failed\n');
    expect(r.stderr).toContain(
      "restfn: error ACTION_RECORD_ID: action 'save-or-note' (update) needs the record's id",
    );
    // onError still ran and is told.
    expect(r.stderr).toContain('restfn:   notification (Not saved): a step for a screen');
    expect(JSON.parse(r.stdout).error.code).toBe('ACTION_RECORD_ID');
  });

  it("a typo in a global action's parameter is PARAMETER_UNKNOWN naming the parameter, before anything runs", async () => {
    const { api, restfn } = await setup();
    for (const given of ['nmae=Lin', 'action.parameters.nmae=Lin']) {
      const r = await restfn('action', 'rename-customer', '-p', 'id=c-1', '-p', given);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        "restfn: error PARAMETER_UNKNOWN: action 'rename-customer' has no parameter 'nmae' (did you mean 'name'?); it declares 'id', 'name'",
      );
    }
    expect(api.requests).toEqual([]);
  });
});
