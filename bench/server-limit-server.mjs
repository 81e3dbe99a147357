// Child process for bench/server-limit.mjs: "the server limit" of issue 29, what a competent
// engineer would write by hand for the platform's execute: fastify (logging off) with one route
// that checks `Authorization: Bearer` against a SHA-256 hash with timingSafeEqual, GETs the remote
// through an undici Pool, evaluates the function's outputTransform with compiled JSONata (the
// `jsonata` package), inserts one audit row per execution into SQLite (WAL, synchronous=NORMAL) and
// answers {status, output, correlationId}. Arguments: the remote's url, the token, and a JSON object
// of the functions' transforms by function name (an unknown function is a 404, as on restfn).
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import jsonata from 'jsonata';
import { Pool } from 'undici';

const [remoteUrl, token, transforms] = process.argv.slice(2);
const expected = createHash('sha256').update(token).digest();
const remote = new URL(remoteUrl);
const pool = new Pool(remote.origin, { connections: 64 });
const expressions = new Map(Object.entries(JSON.parse(transforms)).map(([name, t]) => [name, jsonata(t)]));
const db = new Database(join(mkdtempSync(join(tmpdir(), 'restfn-limit-')), 'audit.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(
  'CREATE TABLE audit (at TEXT, actor TEXT, solution TEXT, target TEXT, outcome TEXT, correlation_id TEXT, duration_ms INTEGER)',
);
const insert = db.prepare('INSERT INTO audit VALUES (?, ?, ?, ?, ?, ?, ?)');

const app = Fastify({ logger: false });
app.post('/api/v1/solutions/:s/functions/:f/execute', async (req, reply) => {
  const started = Date.now();
  const header = req.headers.authorization ?? '';
  const given = createHash('sha256')
    .update(header.startsWith('Bearer ') ? header.slice(7) : '')
    .digest();
  if (!timingSafeEqual(given, expected))
    return reply.status(401).send({ status: 'error', code: 'AUTH_REQUIRED' });
  const expression = expressions.get(req.params.f);
  if (!expression) return reply.status(404).send({ status: 'error', code: 'FUNCTION_NOT_FOUND' });
  const res = await pool.request({ path: remote.pathname, method: 'GET' });
  const body = await res.body.json();
  const output = await expression.evaluate(body);
  const correlationId = randomUUID();
  insert.run(
    new Date().toISOString(),
    'admin',
    req.params.s,
    req.params.f,
    'ok',
    correlationId,
    Date.now() - started,
  );
  return { status: 'ok', output, correlationId };
});
await app.listen({ port: 0, host: '127.0.0.1' });
process.send({ port: app.server.address().port });
