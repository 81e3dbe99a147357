import { parentPort, workerData } from 'node:worker_threads';
import type { CredentialRecords } from '../../auth/provider.js';
import { validateUpload } from '../publish.js';
import {
  ExecutionFailure,
  type FromWorker,
  type RecordsOp,
  type ToWorker,
  toWire,
  type WorkerConfig,
} from './protocol.js';
import { SolutionRuntimes } from './solution-runtimes.js';
import { runTask } from './tasks.js';

// An executor worker (pool.ts starts them): runs what authors wrote (their YAML, JSONata, scripts)
// and the calls it makes, for one solution at a time, away from the thread that answers requests.

const port = parentPort!;
const config = workerData as WorkerConfig;
const send = (message: FromWorker) => port.postMessage(message);

// The watchdog's pulse: it stops while author work holds this thread's event loop.
const beat = new Int32Array(config.heartbeat);
Atomics.add(beat, 0, 1);
setInterval(() => Atomics.add(beat, 0, 1), 100);

/** Credential record operations, answered by the request thread (which holds the vault). */
let nextRid = 0;
const answers = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
function ask(solution: string, op: RecordsOp, key: string, arg?: unknown, user?: string): Promise<unknown> {
  const rid = nextRid++;
  return new Promise((resolve, reject) => {
    answers.set(rid, { resolve, reject });
    send({
      type: 'records',
      rid,
      solution,
      op,
      key,
      ...(arg === undefined ? {} : { arg }),
      ...(user === undefined ? {} : { user }),
    });
  });
}

function records(solution: string): CredentialRecords {
  return {
    get: (key) => ask(solution, 'get', key) as ReturnType<CredentialRecords['get']>,
    keys: () => ask(solution, 'keys', '') as Promise<readonly string[]>,
    getTokens: (key, user) =>
      ask(solution, 'getTokens', key, undefined, user) as ReturnType<CredentialRecords['getTokens']>,
    setTokens: async (key, tokens, user) => {
      await ask(solution, 'setTokens', key, tokens, user);
    },
    clearTokens: (key, ifRefreshToken, user) =>
      ask(solution, 'clearTokens', key, ifRefreshToken, user) as Promise<boolean>,
    exclusive: async (key, work, user) => {
      const lock = (await ask(solution, 'lock', key, undefined, user)) as number;
      try {
        return await work();
      } finally {
        void ask(solution, 'unlock', key, lock);
      }
    },
  };
}

const runtimes = new SolutionRuntimes({ ...config, records });
const running = new Map<number, { abort: AbortController; pageRead?: () => void }>();

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'task':
      void run(message);
      return;
    case 'abort':
      running.get(message.id)?.abort.abort();
      return;
    case 'page-read':
      running.get(message.id)?.pageRead?.();
      return;
    case 'records-answer': {
      const waiting = answers.get(message.rid);
      answers.delete(message.rid);
      if (message.error) waiting?.reject(new ExecutionFailure(message.error));
      else waiting?.resolve(message.value);
      return;
    }
  }
});

async function run(message: Extract<ToWorker, { type: 'task' }>): Promise<void> {
  const { id, solution, version, task } = message;
  const state: { abort: AbortController; pageRead?: () => void } = { abort: new AbortController() };
  running.set(id, state);
  try {
    let value: unknown;
    if (task.kind === 'validate') {
      value = await validateUpload(config.dataDir, solution, task.files, config.ceilings);
    } else {
      value = await runtimes.with(solution, version!.number, version!.root, (runtime) =>
        runTask(runtime, task, state.abort.signal, async (page, result) => {
          // The next page is fetched once the request thread has written this one (or the caller
          // went away: the execution stops).
          const signal = state.abort.signal;
          const read = new Promise<void>((resolve, reject) => {
            state.pageRead = resolve;
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          });
          send({ type: 'page', id, page, result });
          await read;
        }),
      );
    }
    send({ type: 'done', id, value });
  } catch (error) {
    send({ type: 'failed', id, error: toWire(error) });
  } finally {
    running.delete(id);
  }
}
