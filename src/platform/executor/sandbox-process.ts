import { RestfnError } from '../../errors/restfn-error.js';
import type { SecretCollector } from '../../runtime/call.js';
import { maskAnswer, maskWire } from './answer-mask.js';
import { type ToWorker, toWire } from './protocol.js';
import { RecordsClient } from './records-client.js';
import type { FromSandbox, SandboxStart } from './sandbox.js';
import { SolutionRuntimes } from './solution-runtimes.js';
import { runTask } from './tasks.js';

// A sandbox process (sandbox.ts starts one per task): runs one task that runs the author's SQL (a
// datasource preview) in a process of its own, with a data-size limit, no environment, a temporary
// folder as its only own files, and (when the platform runs as root) an unprivileged user. Its
// parent kills it when the task is done, when its deadline passes, or when the caller goes away.

/** The largest preview answer (JSON): 100 rows a table, of any size, must not flood the platform. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

const send = (message: FromSandbox) => process.send?.(message);
const credentials = new RecordsClient(send);
const abort = new AbortController();

process.on('message', (message: ToWorker | SandboxStart) => {
  switch (message.type) {
    case 'start':
      void run(message);
      return;
    case 'abort':
      abort.abort();
      return;
    case 'records-answer':
      credentials.receive(message);
      return;
  }
});
// The parent went away: nothing more to do.
process.on('disconnect', () => process.exit(0));

async function run({ config, solution, version, task }: SandboxStart): Promise<void> {
  send({ type: 'started' });
  const collect: SecretCollector = new Set();
  try {
    // One runtime for one task: nothing to bound.
    const runtimes = new SolutionRuntimes({
      ...config,
      records: (s) => credentials.records(s),
      maxBytes: Number.POSITIVE_INFINITY,
    });
    const value = maskAnswer(
      await runtimes.with(solution, version, (runtime) =>
        runTask(runtime, task, abort.signal, async () => undefined, collect),
      ),
      collect,
    );
    // What the parent holds and answers: bounded, like a response the platform reads.
    const size = JSON.stringify(value)?.length ?? 0;
    if (size > MAX_ANSWER_BYTES) {
      throw new RestfnError(
        'RESPONSE_TOO_LARGE',
        `the preview's rows come to ${Math.ceil(size / 1024 / 1024)} MB, more than a preview answers (${MAX_ANSWER_BYTES / 1024 / 1024} MB): preview a datasource whose rows are smaller`,
      );
    }
    send({ type: 'done', id: 0, value });
  } catch (error) {
    send({ type: 'failed', id: 0, error: maskWire(toWire(outOfMemory(error) ?? error), collect) });
  }
}

/** SQLite's allocations fail at the data-size limit (V8's end the process instead). */
function outOfMemory(error: unknown): RestfnError | undefined {
  for (let e = error as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === 'SQLITE_NOMEM' || e.code === 'SQLITE_FULL') {
      return new RestfnError(
        'EXECUTION_MEMORY',
        'the preview needed more memory than this platform gives an execution (restfn serve --max-memory-mb): it was stopped',
      );
    }
  }
  return undefined;
}
