import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

/**
 * The new author's hour: functions whose base url is a path parameter with a default from the
 * solution's settings (the pattern the docs recommend), an action made by `restfn new`, a broken
 * action fixed after its command was queued.
 */
async function ticketsSolution() {
  const tickets = new Map<string, Record<string, unknown>>([['t-1', { id: 't-1', status: 'open' }]]);
  const api = await testServer((req, res) => {
    if (req.method === 'GET') return json(res, 200, [...tickets.values()]);
    const id = decodeURIComponent(req.url.split('/').at(-1)!);
    if (!tickets.has(id)) return json(res, 404, { error: 'no such ticket' });
    tickets.set(id, { ...tickets.get(id), ...JSON.parse(req.body) });
    return json(res, 200, tickets.get(id));
  });
  const base =
    "  base: { location: path, type: string, required: true, value: '=@ctx.solution.settings.custom.apiBase' }\n";
  const root = tempSolution({
    'solution.yaml': `name: helpdesk\nsettings:\n  custom:\n    apiBase: ${api.url}\n`,
    'functions/rest-get-tickets.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: '{base}/tickets'\nparameters:\n${base}`,
    'functions/rest-update-ticket.platform': `provider: DATA_PROVIDER_REST\nmethod: PATCH\nurl: '{base}/tickets/{id}'\nparameters:\n${base}  id: { location: path, type: string, required: true }\n  status: { location: body, type: string }\n`,
    'functions/rest-move-ticket.platform': `provider: DATA_PROVIDER_REST\nmethod: PATCH\nurl: '{base}/projects/{project}/tickets/{ticketId}'\nparameters:\n${base}  project: { location: path, type: string, required: true }\n  ticketId: { location: path, type: string, required: true }\n  status: { location: body, type: string }\n`,
    'datasources/tickets.platform':
      'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: tickets\n      function: rest-get-tickets\n  query: SELECT id, data FROM [tickets]\n',
  });
  mkdirSync(join(root, 'actions'));
  const restfn = (...args: string[]) => runCli(args, { cwd: root });
  return { api, tickets, root, restfn };
}

describe('restfn new --template action', () => {
  test('maps only the record id; a parameter with a default is left out, another one is a TODO validate flags', async () => {
    const { api, tickets, root, restfn } = await ticketsSolution();
    const made = await restfn(
      'new',
      'close-ticket',
      '-t',
      'action',
      '-f',
      'rest-update-ticket',
      '-e',
      'tickets',
    );
    expect(made.code, made.stderr).toBe(0);
    const text = readFileSync(join(root, 'actions', 'close-ticket.platform'), 'utf8');
    expect(text).toContain('id: =@ctx.record.id');
    // {base} has a default (the settings' apiBase): it is not the record's id, and not written at all.
    expect(text).not.toMatch(/^\s+base:/m);
    const valid = await restfn('validate', '--format', 'json');
    expect(JSON.parse(valid.stdout)).toMatchObject({ errors: 0, warnings: 0 });

    expect((await restfn('sync', 'tickets')).code).toBe(0);
    const closed = await restfn(
      'action',
      'close-ticket',
      '-p',
      'current.item.id=t-1',
      '-p',
      'components.status.state.value=closed',
    );
    expect(closed.code, closed.stderr).toBe(0);
    expect(api.requests.at(-1)).toMatchObject({ method: 'PATCH', url: '/tickets/t-1' });
    expect(tickets.get('t-1')).toEqual({ id: 't-1', status: 'closed' });

    // Two path parameters without a default: the one named for the entity is the record's id.
    const moved = await restfn(
      'new',
      'move-ticket',
      '-t',
      'action',
      '-f',
      'rest-move-ticket',
      '-e',
      'tickets',
    );
    expect(moved.code, moved.stderr).toBe(0);
    const move = readFileSync(join(root, 'actions', 'move-ticket.platform'), 'utf8');
    expect(move).toContain('ticketId: =@ctx.record.id');
    expect(move).toMatch(/project: <TODO> {2}# TODO: the value of rest-move-ticket's path parameter project/);
    const flagged = await restfn('validate');
    expect(flagged.code).toBe(3);
    expect(flagged.stdout + flagged.stderr).toMatch(
      /actions\/move-ticket\.platform:\d+:\d+: error TODO_VALUE: project is <TODO>, a placeholder to fill in: give the value \(a literal, or an expression such as =@ctx\.record\.project\)/,
    );
  });

  test('INVALID_URL says the url it built', async () => {
    const { root, restfn } = await ticketsSolution();
    writeFileSync(
      join(root, 'actions', 'close-ticket.platform'),
      'type: action.execute-entity\noptions:\n  provider: DATA_PROVIDER_REST\n  entity: tickets\n  method: update\n  function: rest-update-ticket\n  data:\n    id: =@ctx.current.item.id\n    status: closed\n  parameters:\n    base: =@ctx.record.id\n    id: =@ctx.record.id\n    status: =@ctx.record.status\n',
    );
    await restfn('sync', 'tickets');
    const r = await restfn('action', 'close-ticket', '-p', 'current.item.id=t-1');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('INVALID_URL');
    expect(r.stderr).toContain('t-1/tickets/t-1');
  });
});

describe('a queued command built from an older definition', () => {
  test('queue list and push say so, and queue retry --rebuild builds it again from the current files', async () => {
    const { api, tickets, root, restfn } = await ticketsSolution();
    const action = join(root, 'actions', 'close-ticket.platform');
    const broken =
      'type: action.execute-entity\noptions:\n  provider: DATA_PROVIDER_REST\n  entity: tickets\n  method: update\n  function: rest-update-ticket\n  data:\n    id: =@ctx.current.item.id\n    status: =@ctx.components.status.state.value\n  parameters:\n    id: =@ctx.record.id\n    status: =@ctx.record.status\n    base: =@ctx.record.id\n';
    writeFileSync(action, broken);
    await restfn('sync', 'tickets');
    const failed = await restfn(
      'action',
      'close-ticket',
      '-p',
      'current.item.id=t-1',
      '-p',
      'components.status.state.value=closed',
    );
    expect(failed.code).not.toBe(0);
    const id = JSON.parse(failed.stdout).command.id as string;
    // Built from the files as they are: a plain retry is the advice.
    expect(failed.stderr).toContain(`'restfn queue retry ${id}'`);
    const before = JSON.parse((await restfn('queue', 'list', '--format', 'json')).stdout);
    expect(before).toMatchObject([{ id, state: 'failed', definition: 'current' }]);

    // The author fixes the action: the queued command still holds what the broken one built.
    writeFileSync(action, broken.replace('    base: =@ctx.record.id\n', ''));
    const listed = await restfn('queue', 'list');
    expect(listed.stdout).toMatch(/DEFINITION/);
    expect(listed.stdout).toMatch(/failed .* changed/);
    expect(listed.stderr).toContain(`'restfn queue retry --rebuild ${id}'`);
    const retried = await restfn('queue', 'retry', id);
    expect(retried.stderr).toContain('built from an older definition');
    const again = await restfn('queue', 'push');
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(`'restfn queue retry --rebuild ${id}'`);
    expect(api.requests.filter((r) => r.method === 'PATCH')).toEqual([]);

    const rebuilt = await restfn('queue', 'retry', '--rebuild', id.slice(0, 8));
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toBe(`restfn: rebuilt from the current files and queued again: ${id}\n`);
    expect(JSON.parse((await restfn('queue', 'list', '--format', 'json')).stdout)).toMatchObject([
      { id, state: 'queued', record: 't-1', definition: 'current' },
    ]);
    const pushed = await restfn('queue', 'push', '--format', 'json');
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(JSON.parse(pushed.stdout)).toMatchObject({ sent: 1, remaining: 0 });
    expect(api.requests.filter((r) => r.method === 'PATCH').map((r) => r.url)).toEqual(['/tickets/t-1']);
    expect(tickets.get('t-1')).toEqual({ id: 't-1', status: 'closed' });
  });

  test('a command queued before restfn kept its definition still works, and cannot be rebuilt (coded)', async () => {
    const { api, root, restfn } = await ticketsSolution();
    await restfn('sync', 'tickets');
    await restfn('new', 'close-ticket', '-t', 'action', '-f', 'rest-update-ticket', '-e', 'tickets');
    const queued = await restfn(
      'action',
      'close-ticket',
      '--no-push',
      '-p',
      'current.item.id=t-1',
      '-p',
      'components.status.state.value=closed',
    );
    const id = JSON.parse(queued.stdout).command.id as string;
    // As an older restfn wrote it: the payload without its source.
    const db = new Database(join(root, '.restfn', 'local.db'));
    db.prepare("UPDATE [_commandQueue] SET payload = json_remove(payload, '$.source')").run();
    db.close();
    const listed = JSON.parse((await restfn('queue', 'list', '--format', 'json')).stdout);
    expect(listed).toMatchObject([{ id, definition: 'unknown' }]);
    const refused = await restfn('queue', 'retry', '--rebuild', id);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`COMMAND_REBUILD: command '${id}' was queued before restfn kept`);
    const pushed = await restfn('queue', 'push', '--format', 'json');
    expect(JSON.parse(pushed.stdout)).toMatchObject({ sent: 1, remaining: 0 });
    expect(api.requests.at(-1)).toMatchObject({ method: 'PATCH', url: '/tickets/t-1' });
  });
});
