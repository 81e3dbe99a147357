import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DEFAULT_CEILINGS } from '../../src/platform/ceilings.js';
import { minAllowance, nextAllowance, roomBetween } from '../../src/platform/executor/allowance.js';
import { Executor } from '../../src/platform/executor/pool.js';
import { materialise } from '../../src/platform/publish.js';
import { json, testServer } from '../helpers/http-server.js';

// How many workers may start short work at once (issue 41): the cores while the CPU is busy, more
// while it has room and work waits; a lease counts for its first 20 ms only (later it is waiting on
// a remote, running away, or kept busy by its own solution), so none holds the others back for long. Real worker threads, a real
// HTTP service that answers only when told; the clock and the CPU's room are the test's.

describe('the allowance (a pure decision)', () => {
  const bounds = { min: 2, max: 8 };
  it('grows by half (at least one) when work waited and the CPU had room', () => {
    expect(nextAllowance(2, { ...bounds, held: true, room: 0.5 })).toBe(3);
    expect(nextAllowance(3, { ...bounds, held: true, room: 0.5 })).toBe(4);
    expect(nextAllowance(4, { ...bounds, held: true, room: 0.5 })).toBe(6);
    expect(nextAllowance(6, { ...bounds, held: true, room: 0.5 })).toBe(8);
    expect(nextAllowance(8, { ...bounds, held: true, room: 0.5 })).toBe(8);
  });
  it('stays when nothing waited, or the room is small but not gone', () => {
    expect(nextAllowance(4, { ...bounds, held: false, room: 0.5 })).toBe(4);
    expect(nextAllowance(4, { ...bounds, held: true, room: 0.1 })).toBe(4);
  });
  it('shrinks by one when the CPU had no room, never below the floor', () => {
    expect(nextAllowance(5, { ...bounds, held: true, room: 0.01 })).toBe(4);
    expect(nextAllowance(2, { ...bounds, held: false, room: 0 })).toBe(2);
  });
  it('is brought within its bounds (a --max-workers below the floor)', () => {
    expect(nextAllowance(9, { ...bounds, held: false, room: 0.5 })).toBe(8);
    expect(minAllowance(8, 1)).toBe(2);
    expect(minAllowance(8, 16)).toBe(8);
    expect(minAllowance(3, 2)).toBe(2);
  });
});

/** An executor under the test's clock and CPU room, and a service that answers when told. */
async function setup() {
  const held: Array<{ url: string; res: ServerResponse }> = [];
  const service = await testServer((req, res) => {
    held.push({ url: req.url ?? '', res });
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'restfn-allowance-'));
  onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
  const clock = { now: 1_000_000, room: 0 };
  const executor = new Executor({
    dataDir,
    ceilings: DEFAULT_CEILINGS,
    allowPrivateTargets: true,
    allowTargets: {},
    maxWorkers: 8,
    minAllowance: 2,
    cacheBytes: 64 * 1024 * 1024,
    now: () => clock.now,
    cpuRoom: () => clock.room,
    records: () => ({
      get: () => undefined,
      getTokens: () => undefined,
      setTokens: () => undefined,
      clearTokens: () => false,
    }),
  });
  onTestFinished(async () => {
    for (const { res } of held) if (!res.writableEnded) res.destroy();
    await executor.close();
  });
  const execute = (name: string) =>
    executor.run(
      name,
      {
        number: 1,
        root: materialise(dataDir, name, 1, {
          'functions/count.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/items/${name}\noutputTransform: '{ "n": $count(items) }'\n`,
        }),
      },
      { kind: 'execute', name: 'count', parameters: {}, context: {}, correlationId: name, trace: false },
    ) as Promise<{ json: string }>;
  /** Until the service has been asked `n` times in all. */
  const requests = async (n: number) => {
    while (service.requests.length < n) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  /** Answers the first request of `name` not answered yet (all when no name is given). */
  const answer = (name?: string) => {
    for (const { url, res } of held) {
      if (res.writableEnded || (name !== undefined && url !== `/items/${name}`)) continue;
      json(res, 200, { items: [1, 2, 3] });
      if (name !== undefined) return;
    }
  };
  return { executor, execute, requests, answer, clock };
}

describe("the CPU's room (a pure reading of two samples)", () => {
  const at = (wallMs: number, processUs: number, idle: number, total: number) => ({
    wallMs,
    processUs,
    machine: { idle, total },
  });
  it("is this process's unused share of its cores when the machine is idle", () => {
    // 100 ms, 2 cores, 150 ms of CPU used: a quarter left.
    expect(roomBetween(at(0, 0, 0, 0), at(100, 150_000, 200, 200), 2)).toBeCloseTo(0.25);
  });
  it("is the machine's idle share when others use the CPU", () => {
    // This process used little, but the machine was idle a tenth of the time.
    expect(roomBetween(at(0, 0, 0, 0), at(100, 10_000, 20, 200), 2)).toBeCloseTo(0.1);
  });
  it('stays within 0..1, and is 1 when no time passed', () => {
    expect(roomBetween(at(0, 0, 0, 0), at(100, 900_000, 0, 200), 2)).toBe(0);
    expect(roomBetween(at(5, 0, 0, 0), at(5, 0, 0, 0), 2)).toBe(1);
    // No machine times (cpus() empty): this process's share alone.
    expect(roomBetween(at(0, 0, 0, 0), at(100, 50_000, 0, 0), 1)).toBeCloseTo(0.5);
  });
});

describe('the pool under its allowance', () => {
  it('holds a third solution back while two short leases run; a lease 20 ms old stops counting; room lets one more', async () => {
    const { executor, execute, requests, answer, clock } = await setup();
    const answers = [execute('a')];
    await requests(1);
    answers.push(execute('b'));
    await requests(2);
    // Two short leases run: the allowance (2) is full, so c waits...
    answers.push(execute('c'));
    expect(executor.stats()).toMatchObject({ busy: 2, waiting: 1, allowed: 2 });
    // ...but more of a's work joins a's worker at once: it takes no thread more.
    answers.push(execute('a'));
    await requests(3);
    expect(executor.stats()).toMatchObject({ busy: 2, waiting: 1 });

    // 25 ms on, a's and b's leases (waiting on their remote) no longer count, and c starts. The CPU has no room: the allowance stays at its floor.
    clock.now += 25;
    executor.check();
    await requests(4);
    expect(executor.stats()).toMatchObject({ busy: 3, waiting: 0, allowed: 2 });

    // d starts beside c (one short lease counted); e finds the allowance full and waits, until a
    // look at the CPU finds room: then one more worker is allowed.
    answers.push(execute('d'));
    await requests(5);
    answers.push(execute('e'));
    expect(executor.stats()).toMatchObject({ waiting: 1, allowed: 2 });
    clock.room = 0.9;
    executor.check();
    await requests(6);
    expect(executor.stats()).toMatchObject({ busy: 5, waiting: 0, allowed: 3 });

    answer();
    for (const result of await Promise.all(answers))
      expect(JSON.parse(result.json)).toMatchObject({ status: 'ok', output: { n: 3 } });
    // Nothing waited since, and the CPU is busy again: back by one per look, to the floor.
    clock.room = 0;
    executor.check();
    expect(executor.stats().allowed).toBe(2);
  });

  it('a worker its solution keeps busy (one execution after another) holds a place in the allowance for 20 ms only', async () => {
    const { executor, execute, requests, answer, clock } = await setup();
    const answers = [execute('a'), execute('a')];
    await requests(2);
    answers.push(execute('b'), execute('b'));
    await requests(4);
    answers.push(execute('c'));
    expect(executor.stats()).toMatchObject({ busy: 2, waiting: 1, allowed: 2 });
    // 25 ms on, a and b each finish one execution and still have another: their workers never went
    // idle, and their solutions could keep them so for as long as they liked. Their leases are 25 ms
    // old: they no longer count, and c starts although the CPU has no room.
    clock.now += 25;
    answer('a');
    answer('b');
    await Promise.all([answers[0], answers[2]]);
    executor.check();
    await requests(5);
    expect(executor.stats()).toMatchObject({ busy: 3, waiting: 0, allowed: 2 });
    answer();
    for (const result of await Promise.all(answers))
      expect(JSON.parse(result.json)).toMatchObject({ status: 'ok' });
  });

  it('work still waiting when the pool closes fails with a coded error, and starts nowhere', async () => {
    const { executor, execute, requests } = await setup();
    const a = execute('a');
    await requests(1);
    const b = execute('b');
    await requests(2);
    const c = execute('c');
    expect(executor.stats()).toMatchObject({ waiting: 1 });
    const settled = Promise.allSettled([a, b, c]);
    await executor.close();
    for (const result of await settled)
      expect(result).toMatchObject({
        status: 'rejected',
        reason: { code: 'INTERNAL', message: 'the platform is stopping' },
      });
    expect(executor.stats()).toMatchObject({ busy: 0, idle: 0, waiting: 0 });
  });
});
