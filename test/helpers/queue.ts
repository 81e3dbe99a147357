import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

export interface ApiRequest {
  readonly method: string;
  readonly url: string;
  readonly idempotencyKey: string | undefined;
  readonly body: unknown;
}

/**
 * A small customers service on 127.0.0.1 that behaves like a careful real one: POST assigns ids and
 * honours `Idempotency-Key` (a repeated key gets the first answer again, nothing is created twice),
 * PATCH merges, DELETE removes. It can be taken offline (the port closes: connections are refused)
 * and brought back on the same port, and told to answer the next requests with an error status.
 */
export interface CustomersApi {
  url: string;
  readonly customers: Map<string, Record<string, unknown>>;
  readonly requests: ApiRequest[];
  /** Changes the service applied (a replayed idempotent request is not one). */
  changes: number;
  /** The next `count` requests get `status` (and apply nothing). */
  failNext(status: number, count?: number, body?: unknown): void;
  /** Called for each request before it is handled; may answer itself (return true). */
  intercept?: (req: ApiRequest, res: ServerResponse) => boolean | Promise<boolean>;
  offline(): Promise<void>;
  online(): Promise<void>;
}

export async function customersApi(seed: Array<Record<string, unknown>> = []): Promise<CustomersApi> {
  const customers = new Map(seed.map((c) => [String(c.id), { ...c }]));
  const replies = new Map<string, { status: number; body: unknown }>();
  const failures: Array<{ status: number; body: unknown }> = [];
  let nextId = 1000;
  let server: Server | undefined;
  let port = 0;

  const api: CustomersApi = {
    url: '',
    customers,
    requests: [],
    changes: 0,
    failNext(status, count = 1, body = { error: `failure ${status}` }) {
      for (let i = 0; i < count; i++) failures.push({ status, body });
    },
    async offline() {
      const s = server;
      server = undefined;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async online() {
      if (server) return;
      server = createServer((req, res) => void handle(req, res));
      const s = server;
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve());
      });
      port = (s.address() as AddressInfo).port;
      api.url = `http://127.0.0.1:${port}`;
    },
  };

  function send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const key = req.headers['idempotency-key'] as string | undefined;
    const request: ApiRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      idempotencyKey: key,
      body: text ? JSON.parse(text) : undefined,
    };
    api.requests.push(request);
    if (api.intercept && (await api.intercept(request, res))) return;
    const failure = failures.shift();
    if (failure) return send(res, failure.status, failure.body);
    const replay = key === undefined ? undefined : replies.get(key);
    if (replay) return send(res, replay.status, replay.body);
    const answer = apply(request);
    if (key !== undefined && answer.status < 500) replies.set(key, answer);
    send(res, answer.status, answer.body);
  }

  function apply(req: ApiRequest): { status: number; body: unknown } {
    const [, collection, rawId] = req.url.split('?')[0]!.split('/');
    const id = rawId === undefined ? undefined : decodeURIComponent(rawId);
    if (collection !== 'customers') return { status: 404, body: { error: 'not found' } };
    if (req.method === 'GET' && !id) return { status: 200, body: [...customers.values()] };
    if (req.method === 'POST' && !id) {
      const created = { ...(req.body as object), id: `c-${nextId++}` };
      customers.set(created.id, created);
      api.changes++;
      return { status: 201, body: created };
    }
    const customer = id === undefined ? undefined : customers.get(id);
    if (!customer) return { status: 404, body: { error: `no customer ${id}` } };
    if (req.method === 'GET') return { status: 200, body: customer };
    if (req.method === 'PATCH' || req.method === 'PUT') {
      Object.assign(customer, req.body as object, { id });
      api.changes++;
      return { status: 200, body: customer };
    }
    if (req.method === 'DELETE') {
      customers.delete(id!);
      api.changes++;
      return { status: 204, body: undefined };
    }
    return { status: 405, body: { error: 'method not allowed' } };
  }

  await api.online();
  onTestFinished(() => api.offline());
  return api;
}

/** A solution with the customers functions, a datasource and actions for each method. */
export function queueSolution(url: string): Record<string, string> {
  const fn = (method: string, path: string, params: string, extra = '') =>
    `provider: DATA_PROVIDER_REST\nmethod: ${method}\nurl: ${url}${path}\n${params ? `parameters:\n${params}` : ''}${extra}`;
  const bodyParams = `  name:\n    location: body\n    type: string\n  region:\n    location: body\n    type: string\n`;
  const idParam = `  id:\n    location: path\n    type: string\n    required: true\n`;
  return {
    'functions/rest-create-customer.platform': fn('POST', '/customers', bodyParams),
    'functions/rest-update-customer.platform': fn('PATCH', '/customers/{id}', idParam + bodyParams),
    'functions/rest-delete-customer.platform': fn('DELETE', '/customers/{id}', idParam),
    'functions/rest-get-customers.platform': fn('GET', '/customers', ''),
    'datasources/customers.platform':
      'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: customers\n      function: rest-get-customers\n  query: SELECT id, data FROM [customers]\n',
    'actions/create-customer.platform': action('create', 'rest-create-customer', {
      data: { name: '=@ctx.components.name.state.value', region: '=@ctx.components.region.state.value' },
      parameters: { name: '=@ctx.record.name', region: '=@ctx.record.region' },
    }),
    'actions/update-customer.platform': action('update', 'rest-update-customer', {
      data: { id: '=@ctx.current.item.id', name: '=@ctx.components.name.state.value' },
      parameters: { id: '=@ctx.record.id', name: '=@ctx.record.name' },
    }),
    'actions/delete-customer.platform': action('delete', 'rest-delete-customer', {
      data: { id: '=@ctx.current.item.id' },
      parameters: { id: '=@ctx.current.item.id' },
    }),
  };
}

function action(method: string, fn: string, options: Record<string, Record<string, string>>): string {
  const block = (name: string, values: Record<string, string>) =>
    `  ${name}:\n${Object.entries(values)
      .map(([k, v]) => `    ${k}: ${v}`)
      .join('\n')}\n`;
  return `type: action.execute-entity\noptions:\n  provider: DATA_PROVIDER_REST\n  entity: customers\n  method: ${method}\n  function: ${fn}\n${Object.entries(
    options,
  )
    .map(([k, v]) => block(k, v))
    .join('')}`;
}

/** What a screen would give an action: the item shown and the form's fields. */
export function screen(item: Record<string, unknown> | undefined, fields: Record<string, unknown> = {}) {
  return {
    ...(item ? { current: { item } } : {}),
    components: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { state: { value: v } }])),
  };
}
