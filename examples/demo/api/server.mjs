// The demo's remote service: a small customer API on 127.0.0.1, in memory. Paginated list (next link),
// single record, partial update. Started by examples/demo/run-demo.mjs, or alone: node server.mjs [port]
import { createServer } from 'node:http';

const REGIONS = ['eu', 'us', 'apac'];
/** The key GET /stats wants in x-api-key. */
export const API_KEY = 'demo-key-123';
const customers = new Map(
  Array.from({ length: 60 }, (_, i) => {
    const id = `c-${String(i + 1).padStart(3, '0')}`;
    return [
      id,
      {
        id,
        name: `Customer ${i + 1}`,
        region: REGIONS[i % 3],
        updated: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
      },
    ];
  }),
);

export function startDemoApi(port = 4010) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, `http://${req.headers.host}`);
    const send = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const [, collection, id] = url.pathname.split('/');
    // Counts by region, for callers with the demo's API key (the README stores it as crm-api-key).
    if (collection === 'stats' && req.method === 'GET') {
      if (req.headers['x-api-key'] !== API_KEY) return send(401, { error: 'x-api-key missing or wrong' });
      const regions = Object.fromEntries(REGIONS.map((r) => [r, 0]));
      for (const c of customers.values()) regions[c.region]++;
      return send(200, { customers: customers.size, regions });
    }
    if (collection !== 'customers') return send(404, { error: 'not found' });
    if (!id && req.method === 'GET') {
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 25), 100);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const region = url.searchParams.get('region');
      const all = [...customers.values()].filter((c) => !region || c.region === region);
      const items = all.slice(offset, offset + limit);
      const next = offset + limit < all.length ? new URL(url) : undefined;
      next?.searchParams.set('offset', String(offset + limit));
      return send(200, { items, ...(next ? { next: next.toString() } : {}) });
    }
    const customer = customers.get(id);
    if (!customer) return send(404, { error: `no customer ${id}` });
    if (req.method === 'GET') return send(200, customer);
    if (req.method === 'PATCH') {
      let body = '';
      for await (const chunk of req) body += chunk;
      Object.assign(customer, JSON.parse(body || '{}'), { updated: new Date().toISOString() });
      return send(200, customer);
    }
    return send(405, { error: 'method not allowed' });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startDemoApi(Number(process.argv[2] ?? 4010));
  console.log(`demo API on http://127.0.0.1:${server.address().port}`);
}
