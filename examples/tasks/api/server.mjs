// The tasks example's remote service: task lists and their tasks, in memory, on 127.0.0.1.
// Lists come in pages (an OData-style `@odata.nextLink`), tasks for several lists in one call,
// tasks are created, updated and deleted one by one. Started by the example's test, or alone:
// node server.mjs [port]
import { createServer } from 'node:http';

function seed() {
  const lists = [
    { id: 'l-home', name: 'Home', color: 'green' },
    { id: 'l-work', name: 'Work', color: 'blue' },
    { id: 'l-trip', name: 'Trip', color: 'orange' },
  ];
  const tasks = [
    {
      id: 't-1',
      listId: 'l-home',
      title: 'Water the plants',
      due: '2026-01-10',
      done: false,
      tags: ['garden'],
    },
    { id: 't-2', listId: 'l-home', title: 'Fix the tap', due: '2026-02-01', done: true, tags: [] },
    {
      id: 't-3',
      listId: 'l-work',
      title: 'Send the report',
      due: '2026-01-15',
      done: false,
      tags: ['q1', 'boss'],
    },
    { id: 't-4', listId: 'l-work', title: 'Book the room', due: '2099-01-01', done: false, tags: [] },
    { id: 't-5', listId: 'l-trip', title: 'Pack', due: '2026-03-01', done: false, tags: ['bags'] },
  ];
  return { lists, tasks: new Map(tasks.map((t) => [t.id, t])) };
}

/**
 * Starts the API on `port` (0: any free port). `server.state` is the data, `server.requests` each
 * request seen (method and path), for a test to read.
 */
export function startTasksApi(port = 4011) {
  const state = seed();
  const requests = [];
  let created = 0;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, `http://${req.headers.host}`);
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = text ? JSON.parse(text) : {};
    const parts = url.pathname.split('/').filter(Boolean);

    if (parts[0] === 'lists' && parts.length === 1 && req.method === 'GET') {
      const top = Number(url.searchParams.get('top') ?? 2);
      const skip = Number(url.searchParams.get('skip') ?? 0);
      const value = state.lists.slice(skip, skip + top);
      const more = skip + top < state.lists.length;
      const next = `http://${req.headers.host}/lists?top=${top}&skip=${skip + top}`;
      return send(200, { value, ...(more ? { '@odata.nextLink': next } : {}) });
    }
    if (parts[0] === 'tasks' && parts.length === 1 && req.method === 'GET') {
      const lists = (url.searchParams.get('lists') ?? '').split(',').filter(Boolean);
      const value = [...state.tasks.values()].filter((t) => lists.includes(t.listId));
      return send(200, { value });
    }
    if (parts[0] === 'tasks' && parts.length === 1 && req.method === 'POST') {
      if (!body.title) return send(400, { error: { code: 'missingTitle', message: 'a task needs a title' } });
      if (!state.lists.some((l) => l.id === body.listId))
        return send(400, { error: { code: 'unknownList', message: `there is no list '${body.listId}'` } });
      created += 1;
      const task = { id: `t-new-${created}`, done: false, tags: [], ...body };
      state.tasks.set(task.id, task);
      return send(201, task);
    }
    const task = parts[0] === 'tasks' ? state.tasks.get(parts[1]) : undefined;
    if (!task) return send(404, { error: { code: 'notFound', message: `no ${url.pathname}` } });
    if (req.method === 'PATCH') {
      Object.assign(task, body, { id: task.id });
      return send(200, task);
    }
    if (req.method === 'DELETE') {
      state.tasks.delete(task.id);
      return send(204);
    }
    return send(405, { error: { code: 'method', message: 'method not allowed' } });
  });
  server.state = state;
  server.requests = requests;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startTasksApi(Number(process.argv[2] ?? 4011));
  console.log(`tasks API on http://127.0.0.1:${server.address().port}`);
}
