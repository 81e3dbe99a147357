import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { chmod, chown, cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CredentialRecords } from '../../auth/provider.js';
import { RestfnError } from '../../errors/restfn-error.js';
import { processAlive } from '../../local/process-alive.js';
import type { Ceilings } from '../ceilings.js';
import { PlatformError } from '../errors.js';
import type { ExecutorLog } from './pool.js';
import { ExecutionFailure, type FromWorker, type Task, type ToWorker, type WireError } from './protocol.js';
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
/** A sandbox writes no files (SQLite keeps its temporary data in memory): any it does write stay small. */
const FILE_SIZE = 1024 * 1024;
/** Versions kept copied for sandboxes; past it, all are copied afresh. */
const KEPT_COPIES = 64;
/** When the platform runs as root, sandboxes run as `nobody`. */
const AS_NOBODY = process.getuid?.() === 0;
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
  readonly version: {
    readonly number: number;
    readonly root: string;
    readonly allowHosts?: readonly string[];
  };
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
  /** The previews running, by solution, with who asked. */
  private readonly running = new Map<string, { child: ChildProcess; user: string }>();
  private readonly maxRunning: number;
  /** This platform's folder for sandboxes: a readable copy of each version, a folder per preview. */
  private readonly base = join(tmpdir(), `restfn-sandbox-${process.pid}`);
  /** Versions copied where a sandbox may read them, by solution and version. */
  private readonly copies = new Map<string, Promise<string>>();
  log: ExecutorLog = { warn: () => undefined, error: () => undefined };

  constructor(private readonly options: SandboxOptions) {
    this.maxRunning = options.maxRunning ?? Math.max(2, cpus().length);
    removeAbandoned();
  }

  /** Sandbox processes running now. */
  get runningCount(): number {
    return this.running.size;
  }

  /** Runs `task` for `user` in a sandbox process on `version` of `solution`. */
  async run(
    solution: string,
    version: { number: number; root: string; allowHosts?: readonly string[] },
    task: SandboxStart['task'],
    user: string,
    signal?: AbortSignal,
  ): Promise<unknown> {
    if (!PROCESS_FILE) throw new RestfnError('INTERNAL', 'the sandbox is not built: run npm run build');
    // One at a time per solution and per user, so no one holds every slot.
    const busy = this.running.has(solution)
      ? `a preview of solution '${solution}' is running: wait for it to finish`
      : [...this.running.values()].some((r) => r.user === user)
        ? 'you have a datasource preview running: wait for it to finish'
        : this.running.size >= this.maxRunning
          ? 'the platform runs as many datasource previews as it allows at once: try again in a few seconds'
          : undefined;
    if (busy) throw new PlatformError('RATE_LIMITED', busy, undefined, 2);
    const slot = { child: undefined as unknown as ChildProcess, user };
    this.running.set(solution, slot);
    let folder: string | undefined;
    try {
      const root = await this.copyOf(solution, version);
      folder = await mkdtemp(join(this.base, 'run-'));
      if (AS_NOBODY) await chown(folder, NOBODY, NOBODY);
      return await this.start(
        slot,
        folder,
        {
          type: 'start',
          config: {
            ceilings: this.options.ceilings,
            allowPrivateTargets: this.options.allowPrivateTargets,
            allowTargets: this.options.allowTargets,
          },
          solution,
          version: {
            number: version.number,
            root,
            ...(version.allowHosts ? { allowHosts: version.allowHosts } : {}),
          },
          task,
        },
        signal,
      );
    } finally {
      this.running.delete(solution);
      if (folder) void rm(folder, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /**
   * The version's files where a sandbox can read them and not change them: copied once per version
   * (the data folder is the platform's own, mode 0700), files 0644 and folders 0755, owned by the
   * platform's user. Asynchronous: a large solution's copy never holds the request thread.
   */
  private copyOf(solution: string, version: { number: number; root: string }): Promise<string> {
    const key = `${solution}\0${version.number}`;
    let copy = this.copies.get(key);
    if (!copy) {
      if (this.copies.size >= KEPT_COPIES) this.forgetCopies();
      const target = join(this.base, `v-${randomUUID()}`);
      copy = (async () => {
        await mkdir(this.base, { recursive: true, mode: 0o711 });
        await cp(version.root, target, { recursive: true });
        await readable(target);
        return target;
      })();
      this.copies.set(key, copy);
      copy.catch(() => this.copies.delete(key));
    }
    return copy;
  }

  private forgetCopies(): void {
    for (const copy of this.copies.values())
      void copy.then((path) => rm(path, { recursive: true, force: true })).catch(() => undefined);
    this.copies.clear();
  }

  private start(
    slot: { child: ChildProcess; user: string },
    folder: string,
    message: SandboxStart,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const { solution } = message;
    const { memoryMb, executionMs } = this.options.ceilings;
    const node = [process.execPath, `--max-old-space-size=${memoryMb + 64}`, fileURLToPath(PROCESS_FILE!)];
    const limits = [`--data=${(memoryMb + BASE_MB) * 1024 * 1024}`, `--fsize=${FILE_SIZE}`];
    const [command, ...args] = PRLIMIT ? [PRLIMIT, ...limits, '--', ...node] : node;
    const child = spawn(command!, args, {
      cwd: folder,
      // Nothing of the platform's environment (its master key, its admin token) reaches it.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: folder },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
      ...(AS_NOBODY ? { uid: NOBODY, gid: NOBODY } : {}),
    });
    slot.child = child;
    const post = (m: ToWorker | SandboxStart) => {
      if (child.connected) child.send(m);
    };
    // Its own solution's credentials only, whatever it asks.
    const records = new RecordsHost(() => this.options.records(solution), post);
    return new Promise<unknown>((resolve, reject) => {
      let failure: RestfnError | undefined;
      let started = false;
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
      // What the process says is checked like any input: it runs the author's work.
      const unexpected = () => {
        this.log.warn({ solution }, 'a sandbox process sent something unexpected; ended');
        stop(new RestfnError('INTERNAL', 'the sandbox failed unexpectedly; the server log has the details'));
      };
      child.on('message', (m: unknown) => {
        try {
          const type = (m as { type?: unknown } | null)?.type;
          if (type === 'started' && !started) {
            started = true;
            clearTimeout(deadline);
            deadline = setTimeout(overtime, executionMs + GRACE_MS);
          } else if (type === 'records' && (m as { solution?: unknown }).solution === solution) {
            void records.answer(m as Extract<FromWorker, { type: 'records' }>);
          } else if (type === 'done' && started) {
            resolve((m as { value: unknown }).value);
            child.kill('SIGKILL');
          } else if (type === 'failed' && started) {
            reject(new ExecutionFailure((m as { error: WireError }).error));
            child.kill('SIGKILL');
          } else unexpected();
        } catch {
          unexpected();
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

  /** Ends every sandbox and removes this platform's sandbox folder (the platform stops). */
  close(): void {
    for (const { child } of this.running.values()) child?.kill('SIGKILL');
    rmSync(this.base, { recursive: true, force: true });
  }
}

/** Sandbox folders of platforms that are no longer running (one that died leaves its folder). */
function removeAbandoned(): void {
  let entries: string[];
  try {
    entries = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = Number(/^restfn-sandbox-(\d+)$/.exec(entry)?.[1]);
    if (pid && pid !== process.pid && !processAlive(pid))
      rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
}

/** Files 0644 and folders 0755 below `path`: readable by the sandbox's user, writable by none of it. */
async function readable(path: string): Promise<void> {
  await chmod(path, 0o755);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await readable(child);
    else await chmod(child, 0o644);
  }
}
