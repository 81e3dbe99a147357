// The README's main job (`npm start`): start the demo API on 127.0.0.1:4010, validate the demo
// solution, and run its functions with the real CLI, printing what each returns.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startDemoApi } from './api/server.mjs';

const solution = fileURLToPath(new URL('.', import.meta.url));
const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

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
async function restfn(...args) {
  console.log(`\n$ restfn ${args.join(' ')}`);
  const child = spawn(process.execPath, [cli, ...args, '--solution', solution], { stdio: 'inherit' });
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`restfn ${args[0]} exited ${code}`);
}

try {
  await restfn('validate');
  await restfn('run', 'rest-get-customer', '-p', 'id=c-007');
  await restfn('run', 'rest-update-customer', '-p', 'id=c-007', '-p', 'name=Ada Lovelace', '-p', 'region=eu');
  await restfn('run', 'rest-get-customers', '-p', 'limit=3', '-p', 'region=apac');
} catch (error) {
  console.error(error.message);
  process.exitCode = 1;
} finally {
  server.close();
}
