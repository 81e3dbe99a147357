// One variant of bench/queue.mjs in its own process: N queued updates are set up (not timed), then
// pushed (timed). Prints {"ms": ..., "cpuMs": ..., "sent": ...}.
// - restfn: `runtime.pushQueue()` over the `_commandQueue` filled with N update commands.
// - baseline: the hand-written limit: the same N PATCH requests with undici (JSON body, idempotency
//   key, body read and parsed) one after the other, each followed by a SQLite DELETE of its queue row.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { createRuntime, LocalStore, loadSolution } from '../dist/index.js';
import { CommandQueue } from '../dist/local/command-queue.js';

const [variant, base, solutionRoot, count] = process.argv.slice(2);
const N = Number(count);
const dir = mkdtempSync(join(tmpdir(), 'restfn-bench-queue-'));
const file = join(dir, 'local.db');
const ids = Array.from({ length: N }, (_, i) => `i-${i}`);

let ms;
let sent = 0;
const cpu = process.cpuUsage();
if (variant === 'restfn') {
  const store = new LocalStore(file);
  const queue = new CommandQueue(store.db, () => new Date().toISOString());
  store.db.transaction(() => {
    for (const id of ids) {
      queue.add({
        id: `cmd-${id}`,
        type: 'update',
        entity: 'items',
        record: id,
        function: 'rest-update-item',
        payload: { parameters: { id, name: `name ${id}` } },
      });
    }
  })();
  const runtime = createRuntime(loadSolution(solutionRoot), { store });
  const started = performance.now();
  const result = await runtime.pushQueue();
  ms = performance.now() - started;
  sent = result.sent;
  await runtime.close();
  store.close();
} else {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE queue (seq INTEGER PRIMARY KEY, id TEXT UNIQUE, payload TEXT)');
  const insert = db.prepare('INSERT INTO queue (id, payload) VALUES (?, ?)');
  db.transaction(() => {
    for (const id of ids) insert.run(`cmd-${id}`, JSON.stringify({ id, name: `name ${id}` }));
  })();
  const next = db.prepare('SELECT id, payload FROM queue ORDER BY seq LIMIT 1');
  const remove = db.prepare('DELETE FROM queue WHERE id = ?');
  const started = performance.now();
  for (let row = next.get(); row; row = next.get()) {
    const { id, name } = JSON.parse(row.payload);
    const res = await request(`${base}/items/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'idempotency-key': row.id },
      body: JSON.stringify({ name }),
    });
    await res.body.json();
    if (res.statusCode >= 400) throw new Error(`status ${res.statusCode}`);
    remove.run(row.id);
    sent++;
  }
  ms = performance.now() - started;
  db.close();
}
const used = process.cpuUsage(cpu);
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, sent }));
