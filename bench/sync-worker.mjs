// One measured sync in its own process, so peak RSS belongs to it alone. Prints one JSON line.
// usage: node sync-worker.mjs restfn|baseline|guarded BASE_URL DIR
import { join } from 'node:path';
import Database from 'better-sqlite3';
import jsonata from 'jsonata';
import { Agent, request } from 'undici';
// Every variant loads every module before its clock starts: only the sync is measured.
import { createRuntime, LocalStore, loadSolution } from '../dist/index.js';

const [variant, base, dir] = process.argv.slice(2);
const TRANSFORM = 'items.{ "id": id, "name": name, "value": value, "region": region }';
const started = performance.now();
const cpuStarted = process.cpuUsage();
const eluStarted = performance.eventLoopUtilization();
let rows;

if (variant === 'baseline' || variant === 'guarded') {
  // Hand-written: undici loop following the next link, JSON.parse, the same transform, one prepared
  // insert inside one transaction. `guarded` compiles the transform with restfn's default guardrails.
  const db = new Database(join(dir, 'baseline.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE IF NOT EXISTS items (id TEXT PRIMARY KEY, data JSON)');
  const insert = db.prepare('INSERT OR REPLACE INTO items (id, data) VALUES (?, ?)');
  const expression =
    variant === 'guarded'
      ? jsonata(TRANSFORM, { timeout: 2000, stack: 500, sequence: 1_000_000 })
      : jsonata(TRANSFORM);
  const agent = new Agent();
  db.exec('BEGIN');
  db.exec('DELETE FROM items');
  for (let url = `${base}/items?page=1`; url; ) {
    const res = await request(url, { dispatcher: agent });
    const body = JSON.parse(await res.body.text());
    for (const record of await expression.evaluate(body)) insert.run(record.id, JSON.stringify(record));
    url = body.next;
  }
  db.exec('COMMIT');
  rows = db.prepare('SELECT count(*) AS n FROM items').get().n;
  db.close();
  await agent.close();
} else {
  const store = new LocalStore(join(dir, 'restfn.db'));
  const runtime = createRuntime(loadSolution(join(dir, 'solution')), { store });
  await runtime.sync('items');
  rows = store.db.prepare('SELECT count(*) AS n FROM [items]').get().n;
  await runtime.close();
  store.close();
}

const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuStarted);
const cpuMs = (cpu.user + cpu.system) / 1000;
// Time the event loop sat waiting (for the server, mostly).
const idleMs = performance.eventLoopUtilization(eluStarted).idle;
console.log(
  JSON.stringify({ variant, ms, cpuMs, idleMs, rows, maxRssMB: process.resourceUsage().maxRSS / 1024 }),
);
