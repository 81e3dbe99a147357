import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataHealth, PROBE_TTL_MS } from '../../src/platform/data-health.js';
import type { PlatformStore } from '../../src/platform/store/types.js';

/** The store's side of the probe: counted, and failing as told. */
function probedStore(fail: () => Error | undefined) {
  const calls = { n: 0 };
  const store = {
    async probeWrite() {
      calls.n++;
      const error = fail();
      if (error) throw error;
    },
  } as unknown as PlatformStore;
  return { store, calls };
}

describe("/healthz's write probe", () => {
  it('believes a probe that wrote for a few seconds, a failed one never; a request that met a full disk ends the belief', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'restfn-health-'));
    let now = 1_000_000;
    let failure: Error | undefined;
    const { store, calls } = probedStore(() => failure);
    const health = new DataHealth({ dataDir, store, now: () => now });
    try {
      expect(await health.check()).toBeUndefined();
      expect(await health.check()).toBeUndefined();
      expect(calls.n).toBe(1);
      now += PROBE_TTL_MS;
      failure = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      expect(await health.check()).toBe('SQLITE_FULL');
      // Not kept: the next check probes again, and sees the room freed at once.
      failure = undefined;
      expect(await health.check()).toBeUndefined();
      expect(calls.n).toBe(3);
      health.failed();
      expect(await health.check()).toBeUndefined();
      expect(calls.n).toBe(4);
      // Any other failure is no full disk: it is thrown (the error handler codes it).
      now += PROBE_TTL_MS;
      failure = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      await expect(health.check()).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('probes the data folder with a write of its own, and leaves nothing behind', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'restfn-health-'));
    const { store } = probedStore(() => undefined);
    const health = new DataHealth({ dataDir, store });
    try {
      expect(await health.check()).toBeUndefined();
      expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
