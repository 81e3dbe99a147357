// The README's main job (`npm start`): start the demo API on 127.0.0.1:4010, validate the demo
// solution, sync its datasource page by page into a real SQLite file, print what landed, and run
// single functions with the real CLI.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemoApi } from './api/server.mjs';
import { shellLine } from './shell-quote.mjs';

const solution = fileURLToPath(new URL('.', import.meta.url));
const cli = fileURLToPath(new URL('../../dist/bin/restfn.js', import.meta.url));
// A fresh database each run, in the demo's state folder (git-ignored).
const db = join(solution, '.restfn', 'demo.db');
rmSync(db, { force: true });

let server;
try {
  server = await startDemoApi(4010);
} catch (error) {
  console.error(
    `cannot start the demo API on 127.0.0.1:4010 (${error.code ?? error.message}); free the port and retry`,
  );
  process.exit(1);
}

// Asynchronous on purpose: the demo API answers from this same process.
// With { capture: true } last, stdout is returned instead of shown.
async function restfn(...args) {
  const capture = typeof args.at(-1) === 'object' ? args.pop().capture : false;
  // Quoted as a shell needs it: the line can be pasted as it is.
  console.log(`\n$ ${shellLine(['restfn', ...args])}`);
  const child = spawn(process.execPath, [cli, ...args, '--solution', solution], {
    stdio: ['inherit', capture ? 'pipe' : 'inherit', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`restfn ${args[0]} exited ${code}`);
  return out;
}

try {
  await restfn('validate');
  await restfn('sync', 'customers', '--db', db);
  await restfn(
    'query',
    "SELECT json_extract(data, '$.region') AS region, count(*) AS customers FROM [customers] GROUP BY 1",
    '--db',
    db,
  );
  await restfn('run', 'rest-get-customer', '-p', 'id=c-007');
  await restfn('run', 'rest-update-customer', '-p', 'id=c-007', '-p', 'name=Ada Lovelace', '-p', 'region=eu');

  // Offline round trip: the API stops, an action changes the local row and queues its remote call;
  // the API comes back, the queue is pushed, and the local row and the remote record agree.
  console.log('\n# the demo API stops: the device is offline');
  await new Promise((resolve) => server.close(resolve).closeAllConnections());
  await restfn(
    'action',
    'update-customer',
    '-p',
    'current.item.id=c-007',
    '-p',
    'components.name.state.value=Ada (edited offline)',
    '--db',
    db,
  );
  await restfn('queue', '--db', db);
  console.log('\n# the demo API is back');
  server = await startDemoApi(4010);
  await restfn('queue', 'push', '--db', db);
  const local = JSON.parse(
    await restfn('query', "SELECT data FROM [customers] WHERE id = 'c-007'", '--db', db, { capture: true }),
  )[0].data;
  const remote = await (await fetch('http://127.0.0.1:4010/customers/c-007')).json();
  const agree = JSON.stringify(local) === JSON.stringify(remote);
  console.log(
    `\nlocal row:     ${JSON.stringify(local)}\nremote record: ${JSON.stringify(remote)}\n${agree ? 'they agree' : 'THEY DIFFER'}`,
  );
  if (!agree) throw new Error('the local row and the remote record differ after the push');
  console.log(
    `\nThe local database is ${db}; try: node dist/bin/restfn.js query customers --db ${db} --solution examples/demo`,
  );
} catch (error) {
  console.error(error.message);
  process.exitCode = 1;
} finally {
  server.close();
}
