// Child process for bench/execute.mjs: answers GET /things/:id with the same 100-item JSON body.
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
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
