import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CredentialRecords } from '../../auth/provider.js';
import { RestfnError } from '../../errors/restfn-error.js';
import type { Ceilings } from '../ceilings.js';
import { PlatformError } from '../errors.js';
import type { ExecutorLog } from './pool.js';
import { ExecutionFailure, type FromWorker, type Task, type ToWorker } from './protocol.js';
import { RecordsHost } from './records-host.js';

/** The sandbox's code: next to this file's output, or (tests from the sources) the build's. */
const PROCESS_FILE = [
  new URL('../../platform/executor/sandbox-process.js', import.meta.url),
  new URL('../../../dist/platform/executor/sandbox-process.js', import.meta.url),
].find((url) => existsSync(fileURLToPath(url)));

/** Node's own code, libraries and caches, on top of what the execution may use. */
const BASE_MB = 256;
/** Longest a sandbox may take to start Node and load the runtime (a loaded machine is slow at it). */
const START_MS = 30_000;
/** After the execution's own limit (which stops calls and expressions first): native SQL stops here. */
const GRACE_MS = 1000;
/** The user and group a sandbox runs as when the platform runs as root. */
const NOBODY = 65534;
/** Where util-linux's prlimit is: it sets the data-size limit for the process it starts. */
const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((f) => existsSync(f));

/** What a sandbox process says: a worker's messages, and that it is loaded and has begun. */
export type FromSandbox = FromWorker | { readonly type: 'started' };

/** The first message to a sandbox process: what to run, and the runtime's settings. */
export interface SandboxStart {
  readonly type: 'start';
  readonly config: {
    readonly ceilings: Ceilings;
    readonly allowPrivateTargets: boolean;
    readonly allowTargets: Readonly<Record<string, readonly string[]>>;
  };
  readonly solution: string;
  readonly version: { readonly number: number; readonly root: string };
  readonly task: Extract<Task, { kind: 'datasource' }>;
}

export interface SandboxOptions {
  readonly ceilings: Ceilings;
  readonly allowPrivateTargets: boolean;
  readonly allowTargets: Readonly<Record<string, readonly string[]>>;
  /** A solution's credential records (the vault stays on the request thread). */
  readonly records: (solution: string) => CredentialRecords;
  /** Sandboxes at once, platform-wide. @default the number of cores, at least 2 */
  readonly maxRunning?: number;
}

/**
 * Where work that runs the author's SQL goes (a datasource preview): a process of its own per task.
 * better-sqlite3 has no authorizer and no way to interrupt a statement, and SQLite's memory is
 * outside a worker's heap limit, so a worker thread cannot hold it. A process can be limited
 * (`prlimit --data`: every allocation, SQLite's too) and killed at its deadline, whatever runs in
 * it; its store is in memory and confined (no ATTACH, PRAGMA or VACUUM), and it starts with no
 * environment in a temporary folder holding a copy of the version's files, as `nobody` when the
 * platform runs as root. One per solution at a time, a few platform-wide; more are refused with
 * 429, not queued: a preview is a click, and a queue would let one author hold everyone's.
 */
export class Sandboxes {
  private readonly running = new Map<string, ChildProcess>();
  private readonly maxRunning: number;
  log: ExecutorLog = { warn: () => undefined, error: () => undefined };

  constructor(private readonly options: SandboxOptions) {
    this.maxRunning = options.maxRunning ?? Math.max(2, cpus().length);
  }

  async run(
    solution: string,
    version: { number: number; root: string },
    task: SandboxStart['task'],
    signal?: AbortSignal,
  ): Promise<unknown> {
    if (!PROCESS_FILE) throw new RestfnError('INTERNAL', 'the sandbox is not built: run npm run build');
    if (this.running.has(solution) || this.running.size >= this.maxRunning) {
      throw new PlatformError(
        'RATE_LIMITED',
        this.running.has(solution)
          ? `a preview of solution '${solution}' is running: wait for it to finish`
          : 'the platform runs as many datasource previews as it allows at once: try again in a few seconds',
        undefined,
        2,
      );
    }
    const folder = mkdtempSync(join(tmpdir(), 'restfn-sandbox-'));
    try {
      const root = join(folder, 'solution');
      cpSync(version.root, root, { recursive: true });
      const asNobody = process.getuid?.() === 0;
      if (asNobody) chownTree(folder);
      return await this.start(
        solution,
        folder,
        asNobody,
        {
          type: 'start',
          config: {
            ceilings: this.options.ceilings,
            allowPrivateTargets: this.options.allowPrivateTargets,
            allowTargets: this.options.allowTargets,
          },
          solution,
          version: { number: version.number, root },
          task,
        },
        signal,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }

  private start(
    solution: string,
    folder: string,
    asNobody: boolean,
    message: SandboxStart,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const { memoryMb, executionMs } = this.options.ceilings;
    const node = [process.execPath, `--max-old-space-size=${memoryMb + 64}`, fileURLToPath(PROCESS_FILE!)];
    const [command, ...args] = PRLIMIT
      ? [PRLIMIT, `--data=${(memoryMb + BASE_MB) * 1024 * 1024}`, '--', ...node]
      : node;
    const child = spawn(command!, args, {
      cwd: folder,
      // Nothing of the platform's environment (its master key, its admin token) reaches it.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: folder },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
      ...(asNobody ? { uid: NOBODY, gid: NOBODY } : {}),
    });
    this.running.set(solution, child);
    const post = (m: ToWorker | SandboxStart) => {
      if (child.connected) child.send(m);
    };
    // It asks for its own solution's credentials only; anything else is refused, whatever it says.
    const records = new RecordsHost((asked) => {
      if (asked !== solution) throw new RestfnError('FORBIDDEN', 'a sandbox reads its own solution only');
      return this.options.records(asked);
    }, post);
    return new Promise<unknown>((resolve, reject) => {
      let failure: RestfnError | undefined;
      const stop = (error: RestfnError) => {
        failure ??= error;
        child.kill('SIGKILL');
      };
      // Starting has its own limit; the execution's counts from when the sandbox has begun.
      let deadline = setTimeout(
        () => stop(new RestfnError('INTERNAL', 'a sandbox process did not start in time')),
        START_MS,
      );
      const overtime = () =>
        stop(
          new RestfnError(
            'EXECUTION_STALLED',
            `the preview of datasource '${message.task.name}' ran past ${executionMs} ms (restfn serve --max-execution-ms): it was stopped`,
          ),
        );
      const onAbort = () => stop(new RestfnError('CANCELLED', 'the preview was cancelled'));
      signal?.addEventListener('abort', onAbort, { once: true });
      child.on('message', (m: FromSandbox) => {
        if (m.type === 'started') {
          clearTimeout(deadline);
          deadline = setTimeout(overtime, executionMs + GRACE_MS);
        } else if (m.type === 'records') void records.answer(m);
        else if (m.type === 'done') {
          resolve(m.value);
          child.kill('SIGKILL');
        } else if (m.type === 'failed') {
          reject(new ExecutionFailure(m.error));
          child.kill('SIGKILL');
        }
      });
      child.on('error', (error) => {
        this.log.error({ err: error, solution }, 'a sandbox process could not start');
        failure ??= new RestfnError(
          'INTERNAL',
          'the platform failed unexpectedly; the server log has the details',
        );
      });
      child.on('close', (code, exitSignal) => {
        clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
        records.releaseAll();
        this.running.delete(solution);
        if (!failure && code !== 0 && exitSignal !== 'SIGKILL') {
          // V8 aborts the process when an allocation fails at the data-size limit or the heap limit.
          failure = new RestfnError(
            'EXECUTION_MEMORY',
            `the preview of datasource '${message.task.name}' needed more memory than this platform gives an execution (${memoryMb} MB, restfn serve --max-memory-mb): it was stopped`,
          );
          this.log.warn({ solution, code, signal: exitSignal }, 'a sandbox process ended');
        }
        // Already settled when it answered; otherwise the reason it ended.
        reject(failure ?? new RestfnError('INTERNAL', 'the sandbox process ended without an answer'));
      });
      post(message);
    });
  }

  /** Ends every sandbox (the platform stops). */
  close(): void {
    for (const child of this.running.values()) child.kill('SIGKILL');
  }
}

/** Hands the sandbox's folder to `nobody`, so the process can read its copy and nothing of the platform's. */
function chownTree(path: string): void {
  chownSync(path, NOBODY, NOBODY);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child);
    else chownSync(child, NOBODY, NOBODY);
  }
}
