import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CredentialRecords } from '../../auth/provider.js';
import { RestfnError } from '../../errors/restfn-error.js';
import type { AbortLike } from '../../http/abort.js';
import type { Ceilings } from '../ceilings.js';
import { CpuRoom, minAllowance, nextAllowance } from './allowance.js';
import { batched } from './batched.js';
import {
  ExecutionFailure,
  type FromWorker,
  reportedCache,
  reportedCalls,
  reportedLogs,
  type Task,
  type ToWorker,
  type WorkerConfig,
} from './protocol.js';
import { RecordsHost } from './records-host.js';

/**
 * The worker's code: tsc's output. Both this file's own output (dist/platform/executor/) and the
 * CLI bundle's chunks (dist/bin/chunks/) sit two folders below dist/; from the sources (tests),
 * the build's.
 */
const WORKER_FILE = [
  new URL('../../platform/executor/worker.js', import.meta.url),
  new URL('../../../dist/platform/executor/worker.js', import.meta.url),
].find((url) => existsSync(fileURLToPath(url)));

/** How often the watchdog looks at the workers' pulses. */
const WATCH_MS = 200;
/** The shortest stand-still the watchdog acts on: several of its looks, many of a pulse's beats. */
const MIN_STALL_MS = 1000;
/** The runtime's own code and caches, on top of what executions may use. */
const WORKER_BASE_MB = 64;
/**
 * Room for the objects an execution makes and drops (a parsed response, its transform's values).
 * V8 sizes a worker's young generation from its small heap: with 32 executions in flight, their
 * objects outlived the scavenges, were promoted, and the old generation was collected whole every
 * ~100 ms (30 full collections per 10,000 executions, a fifth of the worker's time). With this,
 * about half as many, and CPU per execution 540 -> 470 µs (bench/server-limit.mjs, issue 29).
 */
const YOUNG_GENERATION_MB = 64;
/**
 * How long a worker may stand idle before it is ended and its memory comes back (its solutions'
 * runtimes with it): one worker always stays.
 */
const IDLE_MS = 60_000;
/**
 * How many others a waiting solution may let go first, because a free worker already keeps their
 * runtimes (affinity under saturation): bounded, so that no solution waits on others for long.
 */
const MAX_PASSED = 8;
/**
 * A lease counts against the allowance (allowance.ts) for its first 20 ms only: one still running
 * then is waiting on a remote, or running away, or kept busy by its solution's executions one after
 * another, and in each case the others need not wait for it. Short enough that a runaway's
 * neighbours barely notice, long enough that the usual execution (a fraction of a millisecond of
 * CPU and a remote's answer) ends within it. Counting a lease for as long as its worker kept
 * finishing work instead let solutions that keep their workers busy hold every other one back.
 */
const LONG_LEASE_MS = 20;
/**
 * The longest the allowance holds anyone back, whatever happens to the leases: work that waited
 * this long takes a free worker past the allowance. Each lease counts for 20 ms, so the allowance
 * lets `allowance` new leases start per 20 ms: the k-th of many solutions waiting for it may wait
 * k / allowance x 20 ms, and this bounds that (while the allowance grows, if the CPU has room).
 * Under saturation, with no worker free, a wait this long is the queue's, not the allowance's.
 */
const MAX_HELD_MS = 100;

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly onPage: ((page: number, json: string) => Promise<void>) | undefined;
  readonly validating: boolean;
}

interface Slot {
  /** Its number, for the stable order in which each solution prefers the workers (`preference`). */
  readonly id: number;
  readonly worker: Worker;
  readonly beat: Int32Array;
  /** The solution whose work it runs now (while `busy` > 0). */
  solution: string | undefined;
  /** The last solution it ran: it keeps that runtime, so the solution comes back to it. */
  last: string | undefined;
  busy: number;
  /** The solutions whose runtimes it keeps, as its cache reports them (where a solution goes first). */
  readonly holds: Set<string>;
  /** The bytes its cache holds, as last reported. */
  cacheBytes: number;
  /** When it last became idle. */
  idleSince: number;
  /** When it last went from idle to busy. */
  leasedAt: number;
  /** Leases so far: the warmest worker (its JIT) is taken first. */
  executions: number;
  pulse: number;
  /** When the pulse last changed, or the slot last became busy. */
  movedAt: number;
  readonly pending: Map<number, Pending>;
  /** Answers its credential record operations (and releases its locks if it dies). */
  readonly records: RecordsHost;
  /** Posts to the worker, batched per turn of the event loop (nothing once it ended). */
  readonly post: (message: ToWorker) => void;
  ended: boolean;
}

export interface ExecutorOptions {
  readonly dataDir: string;
  readonly ceilings: Ceilings;
  readonly allowPrivateTargets: boolean;
  readonly allowTargets: Readonly<Record<string, readonly string[]>>;
  /** Most workers at once. */
  readonly maxWorkers: number;
  /** Bytes all workers' solution caches may hold together (`--solution-cache-mb`), split evenly. */
  readonly cacheBytes: number;
  /** How long a worker may stand idle before it is ended (one always stays). */
  readonly idleMs?: number;
  /** The time, for the idle workers and the leases' age (tests move it). */
  readonly now?: () => number;
  /** The CPU's unused share since the last call (0..1): `CpuRoom` unless a test sets it. */
  readonly cpuRoom?: () => number;
  /** The fewest workers that may start short work at once (default: the cores, at least 2). */
  readonly minAllowance?: number;
  /** A solution's credential records (the vault stays on this thread). */
  readonly records: (solution: string) => CredentialRecords;
  /** Told of the requests and retries the workers' executions made (the metrics). */
  readonly observer?: {
    call(solution: string, fn: string, seconds: number, outcome: string): void;
    retry(solution: string, fn: string): void;
  };
}

export interface ExecutorLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
  /** What solutions' scripts write with `console.*` (pino: shown with --log-level debug). */
  debug?(fields: object, message: string): void;
}

/**
 * Where author work runs (architecture.md, "Isolation and secrets"): a pool of worker threads,
 * each with a heap limit, leased to one solution at a time. A solution's executions run in its
 * worker (request, response, transforms and scripts in one place, so response bodies never cross
 * threads); other solutions get other workers, so a slow or runaway solution only ever waits for
 * itself. A worker whose event loop stops turning for longer than any limit allows (a script or
 * expression past its ceiling), or that runs out of memory, is ended: only its solution's work in
 * flight fails, with a coded error, and a fresh worker takes its place. Nothing a worker does can
 * end this thread.
 */
export class Executor {
  private readonly slots: Slot[] = [];
  private readonly waiting: Array<{
    solution: string;
    take: (slot: Slot) => void;
    reject: (error: unknown) => void;
    passed: number;
    /** When it began to wait. */
    since: number;
  }> = [];

  private readonly watchdog: NodeJS.Timeout;
  /** How many workers may start short work at once now (allowance.ts), and its floor. */
  private allowance: number;
  private readonly floor: number;
  private readonly cpuRoom: () => number;
  /** Work waited for the allowance since the watchdog last looked. */
  private held = false;
  /** Set while waiting work is due another look (a counted lease turns long, a wait turns overdue), and when. */
  private recheck: NodeJS.Timeout | undefined;
  private recheckAt = Number.POSITIVE_INFINITY;
  private nextId = 0;
  private nextSlot = 0;
  /** The solution caches' hits, misses and evictions, as the workers reported them. */
  private readonly cache = { hits: 0, misses: 0, evictions: 0 };
  private readonly now: () => number;
  private closed = false;
  /** Where the executor says what happened to a worker (the server's log, once it has one). */
  log: ExecutorLog = { warn: () => undefined, error: () => undefined };

  constructor(private readonly options: ExecutorOptions) {
    // A monotonic clock: a wall clock set back would make leases young again.
    this.now = options.now ?? (() => performance.now());
    this.floor = Math.max(
      1,
      Math.min(options.maxWorkers, options.minAllowance ?? minAllowance(options.maxWorkers)),
    );
    this.allowance = this.floor;
    const room = options.cpuRoom ? undefined : new CpuRoom();
    this.cpuRoom = options.cpuRoom ?? (() => room!.sample());
    this.watchdog = setInterval(() => this.watch(), WATCH_MS).unref();
  }

  /**
   * How long a worker's event loop may stand still while it has work: beyond the longest a script
   * or an expression may run (their own limits stop them first; a script thrashing QuickJS's
   * garbage collector at its memory limit may not reach an interrupt check), with room for the
   * parsing of a large answer. A publish's validation reads every file in one go (a large solution takes
   * seconds), within the longest an execution may take.
   */
  stallMs(validating: boolean): number {
    const { scriptMs, expressionMs, executionMs } = this.options.ceilings;
    return Math.max(MIN_STALL_MS, validating ? executionMs : Math.max(scriptMs, expressionMs) + 1500);
  }

  /** Runs `task` for `solution` in its worker; `version` is the published version it runs on. */
  async run(
    solution: string,
    version: { number: number; root: string; allowHosts?: readonly string[] } | undefined,
    task: Task,
    options: { signal?: AbortLike; onPage?: (page: number, json: string) => Promise<void> } = {},
  ): Promise<unknown> {
    if (this.closed) throw new RestfnError('INTERNAL', 'the platform is stopping');
    const slot = await this.lease(solution);
    // Handed over a turn ago: its worker may have ended since (or the pool closed), and work posted
    // to an ended worker would never be answered.
    if (slot.ended || this.closed) {
      this.release(slot);
      throw new RestfnError('INTERNAL', 'the platform is stopping');
    }
    const id = this.nextId++;
    const abort = () => slot.post({ type: 'abort', id });
    try {
      return await new Promise((resolve, reject) => {
        slot.pending.set(id, {
          resolve,
          reject,
          onPage: options.onPage,
          validating: task.kind === 'validate',
        });
        // Its runtime is kept there from now on (until the worker's cache says it evicted it).
        if (version) slot.holds.add(solution);
        slot.post({
          type: 'task',
          id,
          solution,
          ...(version
            ? {
                version: {
                  number: version.number,
                  root: version.root,
                  ...(version.allowHosts ? { allowHosts: version.allowHosts } : {}),
                },
              }
            : {}),
          task,
        });
        if (options.signal?.aborted) abort();
        else options.signal?.addEventListener('abort', abort, { once: true });
      });
    } finally {
      options.signal?.removeEventListener('abort', abort);
      slot.pending.delete(id);
      this.release(slot);
    }
  }

  /** Workers by state, and the solutions waiting for one (the metrics' pool saturation). */
  stats(): { busy: number; idle: number; waiting: number; max: number; allowed: number } {
    const busy = this.slots.filter((s) => s.busy > 0 && !s.ended).length;
    return {
      busy,
      idle: this.slots.filter((s) => !s.ended).length - busy,
      waiting: this.waiting.length,
      max: this.options.maxWorkers,
      allowed: this.allowance,
    };
  }

  /** The solution caches: hits, misses and evictions so far, the bytes held now, and the limit. */
  cacheStats(): { hits: number; misses: number; evictions: number; bytes: number; limit: number } {
    return {
      ...this.cache,
      bytes: this.slots.reduce((sum, s) => sum + s.cacheBytes, 0),
      limit: this.options.cacheBytes,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    clearTimeout(this.recheck);
    // Work still waiting for a worker gets none: it fails as work in flight does.
    for (const entry of this.waiting.splice(0))
      entry.reject(new RestfnError('INTERNAL', 'the platform is stopping'));
    await Promise.all([...this.slots].map((slot) => this.end(slot, undefined)));
  }

  /** The worker of `solution`: its own if it has one busy, else an idle one (one keeping its runtime first). */
  private lease(solution: string): Promise<Slot> | Slot {
    // Behind those waiting already, unless it joins its own worker: a newcomer must not take the
    // place the allowance makes for them.
    const slot =
      this.waiting.length === 0
        ? this.available(solution)
        : this.running(solution) && this.available(solution);
    if (slot) return slot;
    // Every worker runs another solution's work now (or the allowance is full): wait for one.
    return new Promise((take, reject) => {
      this.waiting.push({ solution, take, reject, passed: 0, since: this.now() });
      this.serveWaiting();
    });
  }

  /**
   * A worker for `solution` now, or none. Its own if one runs its work (a solution shares its worker
   * between its executions); else an idle one that keeps its runtime, else the warmest idle one (the most executions run: its JIT is warm, and the
   * work stays on few threads); else, when there is no worker yet, a new one. A worker still loading
   * its code takes no work while another is there (a spare is started whenever none is free, so a
   * runaway's neighbour never waits for one to load). A worker runs one solution's work at a time:
   * a runaway solution only waits for itself. Another worker starts work only within the allowance
   * (`allowed`); joining one's own worker takes no thread more and is always allowed.
   */
  private available(solution: string, overdue = false): Slot | undefined {
    let slot = this.running(solution);
    if (!slot) {
      if (!overdue && !this.allowed()) return undefined;
      const ready = this.slots.filter((s) => s.busy === 0 && !s.ended && Atomics.load(s.beat, 0) > 0);
      slot = ready.find((s) => s.last === solution) ?? ready.find((s) => s.holds.has(solution));
      slot ??= warmest(ready);
      if (!slot && this.slots.length === 0) slot = this.spawn();
      // Only workers still loading (the first ones): the first of them.
      if (!slot && this.slots.every((s) => Atomics.load(s.beat, 0) === 0))
        slot = this.slots.find((s) => s.busy === 0 && !s.ended);
    }
    if (!slot) return undefined;
    this.lend(slot, solution);
    return slot;
  }

  /** The worker that runs `solution`'s work now, if one does. */
  private running(solution: string): Slot | undefined {
    return this.slots.find((s) => s.solution === solution && !s.ended);
  }

  /**
   * Whether another worker may start work now: fewer leases younger than `LONG_LEASE_MS` run than
   * the allowance (allowance.ts). When not, the waiting work is looked at again once the oldest of
   * them turns long, if none ended before.
   */
  private allowed(): boolean {
    const now = this.now();
    let counted = 0;
    let oldest = now;
    for (const s of this.slots) {
      if (s.busy === 0 || s.ended || now - s.leasedAt >= LONG_LEASE_MS) continue;
      counted++;
      oldest = Math.min(oldest, s.leasedAt);
    }
    if (counted < this.allowance) return true;
    this.held = true;
    this.lookAgainAt(oldest + LONG_LEASE_MS);
    return false;
  }

  /** Looks at the waiting work again at `at` (or sooner, if a look is due sooner already). */
  private lookAgainAt(at: number): void {
    if (this.closed || at >= this.recheckAt) return;
    clearTimeout(this.recheck);
    this.recheckAt = at;
    this.recheck = setTimeout(
      () => {
        this.recheck = undefined;
        this.recheckAt = Number.POSITIVE_INFINITY;
        this.serveWaiting();
      },
      Math.max(1, at - this.now() + 1),
    );
    this.recheck.unref?.();
  }

  /** Leases `slot` to `solution` (once more, if it runs its work already). */
  private lend(slot: Slot, solution: string): void {
    if (slot.busy === 0) {
      slot.movedAt = this.now();
      slot.leasedAt = slot.movedAt;
    }
    slot.busy++;
    slot.executions++;
    slot.solution = solution;
    slot.last = solution;
    // A spare: when no other worker is free (or loading), one is started now, so that the next
    // solution (a runaway's neighbour) need not wait for a worker to load its code.
    if (this.slots.length < this.options.maxWorkers && !this.slots.some((s) => s.busy === 0 && !s.ended))
      this.spawn();
  }

  private release(slot: Slot): void {
    if (this.closed) return;
    slot.busy--;
    if (slot.busy > 0) return;
    slot.solution = undefined;
    slot.idleSince = this.now();
    this.serveWaiting();
  }

  /** Hands free (or new) workers to the solutions waiting for one. */
  private serveWaiting(): void {
    if (this.closed) return;
    while (this.waiting.length > 0) {
      const index = this.nextWaiting();
      const waited = this.now() - this.waiting[index]!.since;
      const next = this.available(this.waiting[index]!.solution, waited >= MAX_HELD_MS);
      if (!next) break;
      const [entry] = this.waiting.splice(index, 1);
      for (let i = 0; i < index; i++) this.waiting[i]!.passed++;
      entry!.take(next);
      this.joinRunning(entry!.solution);
    }
    // The first in line is the one that waited longest: the allowance holds it no longer than
    // MAX_HELD_MS. Once past that, only a worker coming free helps (release, end and ready look).
    const first = this.waiting[0];
    if (first && first.since + MAX_HELD_MS > this.now()) this.lookAgainAt(first.since + MAX_HELD_MS);
  }

  /**
   * More work of `solution`, which has just started on a worker, joins it: it takes no worker from
   * anyone waiting, so it need not wait behind them (nor behind the allowance). Work of a solution
   * that runs already never waits (`lease`).
   */
  private joinRunning(only: string): void {
    for (let i = 0; i < this.waiting.length; ) {
      const solution = this.waiting[i]!.solution;
      const own = solution === only ? this.running(solution) : undefined;
      if (!own) {
        i++;
        continue;
      }
      const [entry] = this.waiting.splice(i, 1);
      this.lend(own, entry!.solution);
      entry!.take(own);
    }
  }

  /**
   * Which waiting solution goes next: first come first served (always the first once it has waited
   * `MAX_HELD_MS`: it then goes past the allowance), except that one whose runtime a free worker
   * keeps goes before those that would have theirs made again, unless the first in line was passed
   * `MAX_PASSED` times already.
   */
  private nextWaiting(): number {
    const first = this.waiting[0]!;
    if (first.passed >= MAX_PASSED || this.now() - first.since >= MAX_HELD_MS) return 0;
    const idle = this.slots.filter((s) => s.busy === 0 && !s.ended);
    const index = this.waiting.findIndex(({ solution }) => idle.some((s) => s.holds.has(solution)));
    return Math.max(index, 0);
  }

  private spawn(): Slot {
    if (!WORKER_FILE)
      throw new RestfnError('INTERNAL', 'the executor worker is not built: run npm run build');
    const heartbeat = new SharedArrayBuffer(4);
    const config: WorkerConfig = {
      dataDir: this.options.dataDir,
      ceilings: this.options.ceilings,
      allowPrivateTargets: this.options.allowPrivateTargets,
      allowTargets: this.options.allowTargets,
      heartbeat,
      cacheBytes: this.cacheShare(this.slots.length + 1),
    };
    const worker = new Worker(WORKER_FILE, {
      workerData: config,
      resourceLimits: {
        maxOldGenerationSizeMb: this.options.ceilings.memoryMb + WORKER_BASE_MB,
        maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
      },
      // Its output is the server's: the worker writes nothing itself.
      stdout: false,
      stderr: false,
    });
    const slot: Slot = {
      id: this.nextSlot++,
      worker,
      beat: new Int32Array(heartbeat),
      solution: undefined,
      last: undefined,
      busy: 0,
      holds: new Set(),
      cacheBytes: 0,
      idleSince: this.now(),
      leasedAt: 0,
      executions: 0,
      pulse: 0,
      movedAt: this.now(),
      pending: new Map(),
      records: new RecordsHost(this.options.records, (message) => slot.post(message)),
      post: batched<ToWorker>(
        (message) => {
          if (!slot.ended) worker.postMessage(message);
        },
        (message, error) => {
          this.log.error(
            { err: error, solution: slot.last },
            'a message could not be handed to an executor worker',
          );
          if (message.type === 'task')
            slot.pending
              .get(message.id)
              ?.reject(new RestfnError('INTERNAL', 'the execution could not be handed to its worker'));
        },
      ),
      ended: false,
    };
    worker.on('message', (message: FromWorker) => this.receive(slot, message));
    worker.on('error', (error: Error & { code?: string }) => {
      const memory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      if (!memory) this.log.error({ err: error, solution: slot.last }, 'an executor worker failed');
      void this.end(
        slot,
        memory
          ? new RestfnError(
              'EXECUTION_MEMORY',
              `solution '${slot.last}' needed more memory than this platform gives its executions (${this.options.ceilings.memoryMb} MB, restfn serve --max-memory-mb): its executions in flight were stopped`,
            )
          : new RestfnError('INTERNAL', 'the platform failed unexpectedly; the server log has the details'),
      );
    });
    worker.on('exit', () => {
      if (!slot.ended)
        void this.end(slot, new RestfnError('INTERNAL', 'the executor worker stopped unexpectedly'));
    });
    this.slots.push(slot);
    this.shareCache();
    return slot;
  }

  private receive(slot: Slot, message: FromWorker): void {
    switch (message.type) {
      case 'ready':
        // Its code is loaded: it can take the work waiting.
        this.serveWaiting();
        return;
      case 'done':
        slot.pending.get(message.id)?.resolve(message.value);
        return;
      case 'failed': {
        const failure = new ExecutionFailure(message.error);
        if (failure.stackInWorker)
          this.log.error({ err: { stack: failure.stackInWorker }, solution: slot.last }, 'unexpected error');
        slot.pending.get(message.id)?.reject(failure);
        return;
      }
      case 'page': {
        const pending = slot.pending.get(message.id);
        if (!pending?.onPage) return;
        pending.onPage(message.page, message.json).then(
          () => slot.post({ type: 'page-read', id: message.id }),
          () => slot.post({ type: 'abort', id: message.id }),
        );
        return;
      }
      case 'records':
        void slot.records.answer(message);
        return;
      case 'calls':
        this.observe(message);
        this.cached(slot, message);
        return;
    }
  }

  /** A worker's report of requests and retries, taken only as the plain values it must be. */
  private observe(message: Extract<FromWorker, { type: 'calls' }>): void {
    if (message.logs && this.log.debug) {
      for (const [solution, source, level, text] of reportedLogs(message))
        this.log.debug({ solution, script: source, console: level }, `script console: ${text}`);
    }
    const observer = this.options.observer;
    if (!observer) return;
    const { calls, retries } = reportedCalls(message);
    for (const [solution, fn, seconds, outcome] of calls) observer.call(solution, fn, seconds, outcome);
    for (const [solution, fn] of retries) observer.retry(solution, fn);
  }

  /** What a worker's cache did since its last report. */
  private cached(slot: Slot, message: Extract<FromWorker, { type: 'calls' }>): void {
    const cache = reportedCache(message);
    if (!cache) return;
    this.cache.hits += cache.hits;
    this.cache.misses += cache.misses;
    this.cache.evictions += cache.evicted.length;
    for (const solution of cache.evicted) slot.holds.delete(solution);
    // What a worker says is believed only as far as it can be true.
    slot.cacheBytes = Math.min(cache.bytes, this.options.cacheBytes);
  }

  /**
   * Ends workers whose event loop stood still too long while they had work, and workers idle for
   * longer than `idleMs` (their memory comes back; one worker always stays).
   */
  private watch(): void {
    const now = this.now();
    this.allowance = nextAllowance(this.allowance, {
      held: this.held,
      room: this.cpuRoom(),
      min: this.floor,
      max: this.options.maxWorkers,
    });
    this.held = false;
    if (this.waiting.length > 0) this.serveWaiting();
    const idleMs = this.options.idleMs ?? IDLE_MS;
    for (const slot of [...this.slots]) {
      if (slot.busy === 0 && !slot.ended && now - slot.idleSince > idleMs && this.slots.length > 1) {
        void this.end(slot, undefined);
        continue;
      }
      if (slot.busy === 0 || slot.ended) continue;
      const pulse = Atomics.load(slot.beat, 0);
      // Still loading its code (the first beat comes once it has): not standing still.
      if (pulse === 0) continue;
      if (pulse !== slot.pulse) {
        slot.pulse = pulse;
        slot.movedAt = now;
        continue;
      }
      const validating = [...slot.pending.values()].some((p) => p.validating);
      const limit = this.stallMs(validating);
      if (now - slot.movedAt <= limit) continue;
      this.log.warn(
        { solution: slot.last, stalledMs: now - slot.movedAt },
        'an executor worker stalled; ended',
      );
      void this.end(
        slot,
        new RestfnError(
          'EXECUTION_STALLED',
          validating
            ? `validating the upload of solution '${slot.last}' took more than ${limit} ms: publish fewer or smaller files`
            : `the work of solution '${slot.last}' held its worker for more than ${limit} ms (a script or expression past its limit): its executions in flight were stopped`,
        ),
      );
    }
  }

  /**
   * Tells each worker its share of the solution cache: the total split over the workers there are,
   * so that a few warm workers may keep many solutions and all of them together never more than
   * `--solution-cache-mb`.
   */
  private shareCache(): void {
    const live = this.slots.filter((s) => !s.ended);
    const bytes = this.cacheShare(live.length);
    for (const slot of live) slot.post({ type: 'cache-limit', bytes });
  }

  /**
   * One worker's share of the solution cache when there are `workers`: never more than half of its
   * heap, so that runtimes kept (estimated low: what they build up while running is not counted)
   * cannot run a lone worker out of memory.
   */
  private cacheShare(workers: number): number {
    const heap = (this.options.ceilings.memoryMb + WORKER_BASE_MB) * 1024 * 1024;
    return Math.floor(Math.min(this.options.cacheBytes / Math.max(1, workers), heap / 2));
  }

  /** Looks at the workers now (the watchdog does every 200 ms): tests call it after moving `now`. */
  check(): void {
    this.watch();
  }

  /** Ends a worker: its work in flight fails with `error`, its locks are released, another takes its place. */
  private async end(slot: Slot, error: RestfnError | undefined): Promise<void> {
    if (slot.ended) return;
    slot.ended = true;
    this.slots.splice(this.slots.indexOf(slot), 1);
    for (const pending of slot.pending.values())
      pending.reject(error ?? new RestfnError('INTERNAL', 'the platform is stopping'));
    slot.pending.clear();
    slot.records.releaseAll();
    this.shareCache();
    await slot.worker.terminate().catch(() => undefined);
    if (this.closed) return;
    // Whoever waited for a worker may have one now; if none is free, a new one replaces this one.
    if (
      this.waiting.length > 0 &&
      this.slots.length < this.options.maxWorkers &&
      !this.slots.some((s) => s.busy === 0)
    )
      this.spawn();
    this.serveWaiting();
  }
}

/** The worker among `slots` that has run the most work (ties: the oldest). */
function warmest(slots: readonly Slot[]): Slot | undefined {
  let best: Slot | undefined;
  for (const slot of slots) if (!best || slot.executions > best.executions) best = slot;
  return best;
}
