// Child process for bench/execute.mjs: answers GET /things/:id with the same 100-item JSON body, and
// GET /numbered/:id with 100 items numbered by `id` (for the filter transform of issue 29).
import { createServer } from 'node:http';

const body = Buffer.from(
  JSON.stringify({
    items: Array.from({ length: 100 }, (_, i) => ({
      id: `t-${i}`,
      name: `Thing ${i}`,
      price: i * 1.5,
      tags: ['a', 'b'],
      meta: { rank: i },
    })),
  }),
);
const numbered = Buffer.from(
  JSON.stringify({ items: Array.from({ length: 100 }, (_, i) => ({ id: i, name: `Thing ${i}` })) }),
);
const server = createServer((req, res) => {
  const answer = req.url.startsWith('/numbered/') ? numbered : body;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
  res.end(answer);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
