import { parentPort, workerData } from 'node:worker_threads';
import { RestfnError } from '../../errors/restfn-error.js';
import { Abort } from '../../http/abort.js';
import type { SecretCollector } from '../../runtime/call.js';
import { checkAnswerSize } from '../answer-size.js';
import { preparedPath, validateUpload, versionRoot } from '../publish.js';
import { maskAnswer, maskWire } from './answer-mask.js';
import { eachMessage } from './batched.js';
import {
  type CallAnswer,
  type CallSeen,
  type ExecuteAnswer,
  type FromWorker,
  MAX_CALLS_REPORTED,
  MAX_LOGS_REPORTED,
  type ScriptLogSeen,
  type Task,
  type ToWorker,
  toWire,
  type WorkerConfig,
} from './protocol.js';
import { RecordsClient } from './records-client.js';
import { SolutionRuntimes } from './solution-runtimes.js';
import { runTask } from './tasks.js';

// An executor worker (pool.ts starts them): runs what authors wrote (their YAML, JSONata, scripts)
// and the calls it makes, for one solution at a time, away from the thread that answers requests.

const port = parentPort!;
const config = workerData as WorkerConfig;
// Posted at once, not batched as the request thread's are (batched.ts): an answer must not wait
// for another execution's transform, nor be lost with a batch should this worker be ended.
const send = (message: FromWorker) => port.postMessage(message);

// The watchdog's pulse: it stops while author work holds this thread's event loop.
const beat = new Int32Array(config.heartbeat);
Atomics.add(beat, 0, 1);
setInterval(() => Atomics.add(beat, 0, 1), 100);

/** Credential record operations, answered by the request thread (which holds the vault). */
const credentials = new RecordsClient(send);

// Requests and retries for the metrics, reported in batches: one message per execution would cost
// the request thread more than the numbers are worth.
let calls: CallSeen[] = [];
let retries: Array<[string, string]> = [];
// What scripts wrote with `console.*`, for the server's debug log; as bounded as the rest.
let logs: ScriptLogSeen[] = [];
setInterval(() => {
  const cache = runtimes.report();
  if (calls.length === 0 && retries.length === 0 && logs.length === 0 && !cache) return;
  send({ type: 'calls', calls, retries, logs, ...(cache ? { cache } : {}) });
  calls = [];
  retries = [];
  logs = [];
}, 250).unref();

const runtimes = new SolutionRuntimes({
  ...config,
  records: (solution) => credentials.records(solution),
  observer: (solution) => ({
    call: (fn, seconds, outcome) => {
      if (calls.length < MAX_CALLS_REPORTED) calls.push([solution, fn, seconds, outcome]);
    },
    retry: (fn) => {
      if (retries.length < MAX_CALLS_REPORTED) retries.push([solution, fn]);
    },
  }),
  scriptLog: (solution, log) => {
    if (logs.length < MAX_LOGS_REPORTED) logs.push([solution, log.source, log.level, log.message]);
  },
  maxBytes: config.cacheBytes,
  // A version the platform wrote out (never another folder): its prepared form is kept beside it.
  preparedPath: (solution, version, root) =>
    root === versionRoot(config.dataDir, solution, version)
      ? preparedPath(config.dataDir, solution, version)
      : undefined,
});
const running = new Map<number, { abort: Abort; pageRead?: () => void }>();

port.on('message', (received: ToWorker | ToWorker[]) => eachMessage(received, receive));
send({ type: 'ready' });

function receive(message: ToWorker): void {
  switch (message.type) {
    case 'task':
      void run(message);
      return;
    case 'abort':
      running.get(message.id)?.abort.abort(new DOMException('This operation was aborted', 'AbortError'));
      return;
    case 'cache-limit':
      runtimes.limit(message.bytes);
      return;
    case 'page-read':
      running.get(message.id)?.pageRead?.();
      return;
    case 'records-answer':
      credentials.receive(message);
      return;
  }
}

async function run(message: Extract<ToWorker, { type: 'task' }>): Promise<void> {
  const { id, solution, version, task } = message;
  // A light Abort: an AbortController per execution cost this thread ~3 µs of each.
  const state: { abort: Abort; pageRead?: () => void } = { abort: new Abort() };
  running.set(id, state);
  // Every credential text the task's calls used: its answer, whatever it holds (an output, a
  // trace, an error's texts), is masked with them here, once, before it leaves the worker.
  const collect: SecretCollector = new Set();
  try {
    let value: unknown;
    if (task.kind === 'datasource') {
      // It runs the author's SQL, which only a sandbox process may (sandbox.ts).
      throw new RestfnError('INTERNAL', 'a datasource preview runs in a sandbox process, not a worker');
    } else if (task.kind === 'validate') {
      value = await validateUpload(config.dataDir, solution, task.files, config.ceilings);
    } else {
      value = await runtimes.with(solution, version!, (runtime) =>
        runTask(
          runtime,
          task,
          state.abort,
          async (page, result) => {
            // The next page is fetched once the request thread has written this one (or the caller
            // went away: the execution stops).
            const read = new Promise<void>((resolve, reject) => {
              state.pageRead = resolve;
              state.abort.addEventListener('abort', () => reject(state.abort.reason));
            });
            // The line's text is made here (masked, as every answer), and refused here when too
            // large, as an execute's answer.
            const json = JSON.stringify(maskAnswer(result, collect));
            checkAnswerSize(json, config.ceilings.answerMb, `page ${page} of function '${taskName(task)}'`);
            send({ type: 'page', id, page, json });
            await read;
          },
          collect,
        ),
      );
      value = maskAnswer(value, collect);
      if (task.kind === 'execute')
        value = executeAnswer(value as { status: 'ok' | 'skipped' }, version!.number);
      if (task.kind === 'call') value = callAnswer(value as { correlationId: string }, version!.number);
      if (task.kind === 'execute' || task.kind === 'call')
        checkAnswerSize(
          (value as ExecuteAnswer | CallAnswer).json,
          config.ceilings.answerMb,
          `the answer of function '${task.name}'`,
        );
    }
    send({ type: 'done', id, value });
  } catch (error) {
    send({ type: 'failed', id, error: maskWire(toWire(error), collect) });
  } finally {
    running.delete(id);
  }
}

/** An execute's answer as the caller gets it, with the version it ran on, as JSON text. */
function executeAnswer(answer: { status: 'ok' | 'skipped' }, version: number): ExecuteAnswer {
  return { status: answer.status, json: JSON.stringify({ ...answer, version }) };
}

/** A `/call`'s answer (the response, credentials masked) with its version, as JSON text. */
function callAnswer(response: { correlationId: string }, version: number): CallAnswer {
  return { correlationId: response.correlationId, json: JSON.stringify({ ...response, version }) };
}

function taskName(task: Task): string {
  return 'name' in task ? task.name : task.kind;
}
