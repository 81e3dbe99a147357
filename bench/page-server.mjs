// Child process for bench/sync.mjs: GET /items?page=N serves page N of TOTAL records (SIZE per page),
// generated on the fly, with a `next` link until the last page.
import { createServer } from 'node:http';

const [total, size] = process.argv.slice(2).map(Number);
const server = createServer((req, res) => {
  const url = new URL(req.url, `http://${req.headers.host}`);
  const page = Number(url.searchParams.get('page') ?? 1);
  const start = (page - 1) * size;
  const items = [];
  for (let i = start; i < Math.min(start + size, total); i++) {
    items.push({
      id: `r${i}`,
      name: `Record ${i}`,
      value: i * 3,
      region: ['eu', 'us', 'apac'][i % 3],
      tags: ['a', 'b'],
    });
  }
  const next = start + size < total ? `http://${req.headers.host}/items?page=${page + 1}` : null;
  const body = JSON.stringify({ items, next });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
