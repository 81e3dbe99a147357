// Child process for bench/queue.mjs: PATCH /items/:id merges the JSON body and answers the record.
import { createServer } from 'node:http';

const items = new Map();
const server = createServer(async (req, res) => {
  let text = '';
  for await (const chunk of req) text += chunk;
  const id = req.url.split('/')[2];
  const item = { ...items.get(id), ...JSON.parse(text || '{}'), id };
  items.set(id, item);
  const body = JSON.stringify(item);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
