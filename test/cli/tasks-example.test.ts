import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
// @ts-expect-error: the example's service is plain JavaScript, as an author would write it.
import { startTasksApi } from '../../examples/tasks/api/server.mjs';
import { runCli } from '../helpers/cli.js';
import { EXAMPLES } from '../helpers/temp-solution.js';

interface TasksApi extends Server {
  state: { tasks: Map<string, Record<string, unknown>> };
  requests: string[];
}

// examples/tasks, the whole solution in the platform's style, run end to end with the real CLI
// against its own service: validated, synced (a datasource reading another), queried through its
// datasources, and changed through its actions (a list of syncs, a global action with parameters,
// several records at once, a failure its error handler describes, an offline round trip).
let api: TasksApi;
let root: string;
let port: number;

beforeAll(async () => {
  api = (await startTasksApi(0)) as TasksApi;
  port = (api.address() as { port: number }).port;
  root = mkdtempSync(join(tmpdir(), 'restfn-tasks-'));
  cpSync(join(EXAMPLES, 'tasks'), root, { recursive: true });
  // The example names the service's fixed port; the test's runs wherever the system put it.
  for (const file of readdirSync(join(root, 'functions'))) {
    const path = join(root, 'functions', file);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll('127.0.0.1:4011', `127.0.0.1:${port}`));
  }
});
afterAll(() => {
  api.close();
  rmSync(root, { recursive: true, force: true });
});

const restfn = (...args: string[]) => runCli([...args, '--solution', root]);
const rows = async (sql: string) => JSON.parse((await restfn('query', sql)).stdout) as unknown;
const today = () => new Date().toISOString().slice(0, 10);

test('examples/tasks validates, syncs and acts as written', { timeout: 120_000 }, async () => {
  const validate = await restfn('validate');
  expect(validate.stdout + validate.stderr).toContain('11 files checked: 0 errors, 0 warnings');

  // open-tasks reads task-lists (@ctx.datasources.task-lists): task-lists syncs first.
  const sync = await restfn('sync');
  expect(sync.code, sync.stderr).toBe(0);
  const order = sync.stdout.split('\n').map((line) => line.split(':')[0]);
  expect(order.indexOf('task-lists')).toBeLessThan(order.indexOf('open-tasks'));
  expect(api.requests).toContain('GET /tasks?lists=l-home%2Cl-trip%2Cl-work');

  // The '$.x' shorthand, a join on it, jsonProperties and the list's name from the other table.
  const open = JSON.parse((await restfn('query', 'open-tasks')).stdout);
  expect(open).toEqual([
    { id: 't-1', title: 'Water the plants', due: '2026-01-10', tags: ['garden'], list: 'Home' },
    { id: 't-3', title: 'Send the report', due: '2026-01-15', tags: ['q1', 'boss'], list: 'Work' },
    { id: 't-5', title: 'Pack', due: '2026-03-01', tags: ['bags'], list: 'Trip' },
    { id: 't-4', title: 'Book the room', due: '2099-01-01', tags: [], list: 'Work' },
  ]);
  // isDocument: one object; the solution-level expression gives today's date, read at run time.
  const overdue = JSON.parse((await restfn('query', 'overdue')).stdout);
  expect(overdue).toEqual({ overdue: 3, today: today() });

  // A global action with parameters: the row is made at once with a temporary id, the call creates
  // the task remotely, and the service's id replaces the temporary one. A single tag is a list of one.
  const add = await restfn(
    'action',
    'add-task',
    '-p',
    'title=Buy milk',
    '-p',
    'listId=l-home',
    '-p',
    'tag=shop',
  );
  expect(add.code, add.stderr).toBe(0);
  expect(add.stderr).toMatch(/add-task: 'tasks' record 't-new-1' created locally and sent/);
  expect(add.stderr).toContain('notification (Task added): a step for a screen');
  expect(api.state.tasks.get('t-new-1')).toMatchObject({ title: 'Buy milk', due: today(), tags: ['shop'] });
  expect(await rows("SELECT id FROM [tasks] WHERE id LIKE '_tmp_%'")).toEqual([]);

  // Several records at once (read from a datasource), then the list refreshes everything.
  const complete = await restfn('action', 'complete-list', '-p', 'list=Work');
  expect(complete.code, complete.stderr).toBe(0);
  expect(complete.stderr).toContain('complete-list: action.execute-entities: 2 records');
  expect(complete.stderr).toMatch(/refresh: action.sync-entities: 'tasks' 6 records from rest-get-tasks/);
  for (const id of ['t-3', 't-4'])
    expect(api.state.tasks.get(id)).toMatchObject({ done: true, completedOn: today() });
  expect(await rows("SELECT id FROM [tasks] WHERE '$.done' = 0 ORDER BY id")).toEqual([
    { id: 't-1' },
    { id: 't-5' },
    { id: 't-new-1' },
  ]);

  // The service refuses: the handler's title and alert are expressions over its answer, and its
  // operation stamps the error row with the write time.
  const refused = await restfn('action', 'add-task', '-p', 'title=Lost', '-p', 'listId=l-none');
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain("alert [toast] there is no list 'l-none'");
  const [failure] = (await rows(
    "SELECT '$.title', '$.taskTitle', '$.status', '$.failedAt' FROM [tasks_error]",
  )) as Array<Record<string, unknown>>;
  expect(failure).toMatchObject({
    title: "Task not created - there is no list 'l-none'",
    taskTitle: 'Lost',
    status: 400,
  });
  expect(String(failure?.failedAt)).toMatch(new RegExp(`^${today()}T`));
});

test('offline: the action changes the device at once and queues its call; the push sends it', {
  timeout: 120_000,
}, async () => {
  await restfn('sync');
  await new Promise((resolve) => api.close(resolve));
  try {
    const offline = await restfn(
      'action',
      'add-task',
      '-p',
      'title=Offline',
      '-p',
      'listId=l-trip',
      '--no-push',
    );
    expect(offline.code, offline.stderr).toBe(0);
    const [local] = (await rows("SELECT id FROM [tasks] WHERE '$.title' = 'Offline'")) as Array<{
      id: string;
    }>;
    expect(local?.id).toMatch(/^_tmp_/);
    expect((await restfn('queue')).stdout).toMatch(/queued\s+create\s+tasks\/_tmp_/);
  } finally {
    await new Promise<void>((resolve) => api.listen(port, '127.0.0.1', () => resolve()));
  }
  const push = await restfn('queue', 'push');
  expect(push.code, push.stderr).toBe(0);
  const remote = [...api.state.tasks.values()].find((t) => t.title === 'Offline');
  expect(remote?.id).toMatch(/^t-new-/);
  expect(await rows("SELECT id FROM [tasks] WHERE '$.title' = 'Offline'")).toEqual([{ id: remote?.id }]);
});
