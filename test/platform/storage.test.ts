import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { functionFile, type PlatformProcess, startPlatformProcess } from '../helpers/platform.js';

/** Storage has limits (issue 36, item 5): a quota per solution, retention, a full disk, dead scratch. */

/** A solution whose one function calls `url`, padded with `pad` bytes of comment: distinct per `n`. */
function solution(url: string, n: number, pad = 0): Record<string, string> {
  return {
    'solution.yaml': `name: crm\n# ${n} ${'x'.repeat(pad)}\n`,
    'functions/rest-get-item.platform': functionFile(`${url}/item`),
  };
}

async function publish(platform: PlatformProcess, files: Record<string, string>) {
  return platform.api('PUT', '/api/v1/solutions/crm', { token: platform.adminToken, body: { files } });
}

async function execute(platform: PlatformProcess) {
  return platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-item/execute', {
    token: platform.adminToken,
    body: {},
  });
}

async function versions(platform: PlatformProcess) {
  const listed = await platform.api('GET', '/api/v1/solutions/crm/versions', { token: platform.adminToken });
  expect(listed.status).toBe(200);
  return listed.body.versions as Array<{
    version: number;
    digest: string;
    removed?: string;
    removedBy?: string;
  }>;
}

const folderOf = (platform: PlatformProcess, version: number) =>
  join(platform.dataDir, 'versions', 'crm', String(version));

const scratch = (platform: PlatformProcess) => readdirSync(join(platform.dataDir, 'tmp'));

/** The files column of each version as the SQLite file holds it (null: removed). */
function storedFiles(platform: PlatformProcess): Array<{ version: number; stored: number }> {
  const db = new Database(join(platform.dataDir, 'platform.db'), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT version, files IS NOT NULL AS stored FROM versions WHERE solution = 'crm' ORDER BY version`,
      )
      .all() as Array<{ version: number; stored: number }>;
  } finally {
    db.close();
  }
}

describe('a solution has a quota of stored versions (--max-solution-mb)', () => {
  it('refuses the publish that would take it past the quota, with SOLUTION_QUOTA (413), writing nothing', async () => {
    const service = await testServer((_req, res) => json(res, 200, { ok: true }));
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--max-solution-mb', '1'],
    });
    // ~300 KB a version: three fit in 1 MB, a fourth does not.
    for (const n of [1, 2, 3])
      expect((await publish(platform, solution(service.url, n, 300_000))).status).toBe(201);
    const refused = await publish(platform, solution(service.url, 4, 300_000));
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({
      status: 'error',
      code: 'SOLUTION_QUOTA',
      quotaBytes: 1024 * 1024,
      keptVersions: 3,
    });
    expect(refused.body.uploadBytes).toBeGreaterThan(300_000);
    expect(refused.body.usedBytes).toBeGreaterThan(900_000);
    // How much is used, what the upload adds, the quota, and what to do.
    expect(refused.body.message).toMatch(/keeps 0\.\d MB in 3 version\(s\) and this upload adds 0\.\d MB/);
    expect(refused.body.message).toContain('quota of 1.0 MB (restfn serve --max-solution-mb)');
    expect(refused.body.message).toContain('--keep-versions, now 50');
    expect(refused.body.message).toContain('nothing was published');
    // Nothing written: no version 4 (row or folder), no scratch left, the current one still runs.
    expect((await versions(platform)).map((v) => v.version)).toEqual([3, 2, 1]);
    expect(storedFiles(platform)).toEqual([
      { version: 1, stored: 1 },
      { version: 2, stored: 1 },
      { version: 3, stored: 1 },
    ]);
    expect(scratch(platform)).toEqual([]);
    expect(await execute(platform)).toMatchObject({ status: 200, body: { status: 'ok', version: 3 } });
    expect(existsSync(folderOf(platform, 4))).toBe(false);
    // The refusal is in the solution's audit.
    const log = await platform.api('GET', '/api/v1/solutions/crm/executions?outcome=SOLUTION_QUOTA', {
      token: platform.adminToken,
    });
    expect(log.body.entries).toMatchObject([{ action: 'publish', outcome: 'SOLUTION_QUOTA' }]);
  });
});

describe('older versions are removed past --keep-versions', () => {
  it('keeps the last N: older ones marked removed by retention (row and digest kept), their files gone', async () => {
    const service = await testServer((_req, res) => json(res, 200, { ok: true }));
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--keep-versions', '2'],
    });
    const digests: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      expect((await publish(platform, solution(service.url, n))).status).toBe(201);
      // Run each one: its folder is written out under <data>/versions.
      expect(await execute(platform)).toMatchObject({ body: { status: 'ok', version: n } });
      digests.push((await versions(platform))[0]!.digest);
    }
    const listed = await versions(platform);
    expect(listed.map((v) => [v.version, v.digest, v.removedBy ?? null])).toEqual([
      [4, digests[3], null],
      [3, digests[2], null],
      [2, digests[1], 'retention'],
      [1, digests[0], 'retention'],
    ]);
    expect(listed[3]!.removed).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Gone from the store and from the data folder; the current and the one before stay.
    expect(storedFiles(platform)).toEqual([
      { version: 1, stored: 0 },
      { version: 2, stored: 0 },
      { version: 3, stored: 1 },
      { version: 4, stored: 1 },
    ]);
    await expect
      .poll(() => [1, 2, 3, 4].map((v) => existsSync(folderOf(platform, v))))
      .toEqual([false, false, true, true]);
    // A removed version answers a clear coded error, and cannot be published again.
    const gone = await platform.api('GET', '/api/v1/solutions/crm/versions/1', {
      token: platform.adminToken,
    });
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ code: 'VERSION_REMOVED' });
    expect(gone.body.message).toContain('removed by retention');
    expect(gone.body.message).toContain('--keep-versions');
    const again = await platform.api('POST', '/api/v1/solutions/crm/versions/2/publish', {
      token: platform.adminToken,
    });
    expect(again).toMatchObject({ status: 410, body: { code: 'VERSION_REMOVED' } });
    expect((await versions(platform)).length).toBe(4);
    // A version that never was is still "not published".
    const never = await platform.api('GET', '/api/v1/solutions/crm/versions/9', {
      token: platform.adminToken,
    });
    expect(never.body.code).toBe('SOLUTION_NOT_PUBLISHED');
    // The solution's audit says who removed what.
    const log = await platform.api('GET', '/api/v1/solutions/crm/executions?function=version%201', {
      token: platform.adminToken,
    });
    expect(log.body.entries.filter((e: { actor: string }) => e.actor === 'retention')).toMatchObject([
      { action: 'version.remove', target: 'version 1', outcome: 'ok' },
    ]);
  });

  it('keeps a version a running execution uses, and removes it once the execution ended', async () => {
    let answer: (() => void) | undefined;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const service = await testServer(async (req, res) => {
      if (req.url === '/slow/item') await held;
      json(res, 200, { ok: true });
    });
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--keep-versions', '2'],
    });
    expect((await publish(platform, solution(`${service.url}/slow`, 1))).status).toBe(201);
    const running = execute(platform);
    await expect.poll(() => service.requests.length, { timeout: 20_000 }).toBe(1);
    // Versions 2, 3 and 4 while version 1 runs: 2 goes, 1 stays (in use).
    for (const n of [2, 3, 4]) expect((await publish(platform, solution(service.url, n))).status).toBe(201);
    expect((await versions(platform)).map((v) => [v.version, v.removedBy ?? null])).toEqual([
      [4, null],
      [3, null],
      [2, 'retention'],
      [1, null],
    ]);
    const kept = await platform.api('GET', '/api/v1/solutions/crm/versions/1', {
      token: platform.adminToken,
    });
    expect(kept.status).toBe(200);
    expect(existsSync(folderOf(platform, 1))).toBe(true);
    answer!();
    expect(await running).toMatchObject({ status: 200, body: { status: 'ok', version: 1 } });
    // Its end frees it: removed as retention would have.
    await expect
      .poll(async () => (await versions(platform)).find((v) => v.version === 1)?.removedBy, {
        timeout: 20_000,
      })
      .toBe('retention');
    await expect.poll(() => existsSync(folderOf(platform, 1))).toBe(false);
    expect(storedFiles(platform).map((r) => r.stored)).toEqual([0, 0, 1, 1]);
  });
});

describe('scratch folders of a dead publish', () => {
  it('are removed at the next start', async () => {
    const root = mkdtempSync(join(tmpdir(), 'restfn-storage-'));
    try {
      const first = await startPlatformProcess({ root });
      expect((await first.stop('SIGKILL')).code).not.toBe(0);
      // What a publish killed while validating (or writing a version out) leaves.
      const left = join(first.dataDir, 'tmp', '7d3c0f6e-dead-publish', 'crm', 'functions');
      mkdirSync(left, { recursive: true });
      for (const name of ['a.platform', 'b.platform']) {
        const fd = openSync(join(left, name), 'w');
        writeSync(fd, 'x'.repeat(1000));
        closeSync(fd);
      }
      const second = await startPlatformProcess({ root });
      expect(scratch(second)).toEqual([]);
      await second.stop();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a full disk', () => {
  const root = process.getuid?.() === 0;
  it.skipIf(!root)(
    'answers STORE_FULL (507) to a publish and 503 on /healthz, and both recover once there is room',
    async () => {
      const base = mkdtempSync(join(tmpdir(), 'restfn-full-'));
      const data = join(base, 'data');
      mkdirSync(data);
      // A small file system of its own for --data (as root: CI is).
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', data]);
      let platform: PlatformProcess | undefined;
      try {
        const service = await testServer((_req, res) => json(res, 200, { ok: true }));
        platform = await startPlatformProcess({ root: base, args: ['--allow-private-targets'] });
        expect((await publish(platform, solution(service.url, 1))).status).toBe(201);
        expect(await execute(platform)).toMatchObject({ body: { status: 'ok', version: 1 } });
        expect((await platform.api('GET', '/healthz')).status).toBe(200);
        // Fill it to the last byte.
        const filler = join(data, 'filler');
        const fd = openSync(filler, 'w');
        try {
          const chunk = Buffer.alloc(64 * 1024, 1);
          for (;;) writeSync(fd, chunk);
        } catch (error) {
          expect((error as { code?: string }).code).toBe('ENOSPC');
        } finally {
          closeSync(fd);
        }
        const refused = await publish(platform, solution(service.url, 2, 100_000));
        expect(refused.status).toBe(507);
        expect(refused.body).toMatchObject({ status: 'error', code: 'STORE_FULL' });
        expect(refused.body.message).toContain('full or read-only');
        expect(refused.body.message).not.toContain(data);
        const health = await platform.api('GET', '/healthz');
        expect(health.status).toBe(503);
        expect(health.body).toMatchObject({ code: 'STORE_FULL' });
        // Nothing half-written: version 1 is all there is, and no scratch is left.
        rmSync(filler);
        expect((await versions(platform)).map((v) => v.version)).toEqual([1]);
        expect(scratch(platform)).toEqual([]);
        // Room again: both recover, no restart.
        expect((await platform.api('GET', '/healthz')).status).toBe(200);
        expect((await publish(platform, solution(service.url, 2, 100_000))).status).toBe(201);
        expect(await execute(platform)).toMatchObject({ body: { status: 'ok', version: 2 } });
      } finally {
        // Stopped first: a file system in use cannot be unmounted.
        await platform?.stop();
        execFileSync('umount', [data]);
        rmSync(base, { recursive: true, force: true });
      }
    },
  );
});
