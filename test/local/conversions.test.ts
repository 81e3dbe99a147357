import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { applyConversions, type Conversion } from '../../src/local/conversions.js';
import { FileStore } from '../../src/local/files.js';
import { json, testServer } from '../helpers/http-server.js';
import { datasource, syncSetup } from '../helpers/sync.js';
import { FIXTURES, tempSolution } from '../helpers/temp-solution.js';

const PNG = readFileSync(join(FIXTURES, 'images', 'sample-32x24.png'));
const HEIC = readFileSync(join(FIXTURES, 'images', 'sample-32x24.heic'));
const isJpeg = (b: Buffer) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;

async function converted(
  value: unknown,
  c: Omit<Conversion, 'property'>,
  files?: FileStore,
): Promise<unknown> {
  const target = { v: value };
  await applyConversions(target, [{ property: 'v', ...c }], files);
  return target.v;
}

describe('conversions with real bytes', () => {
  test('every format to every other, round trip preserving the bytes', async () => {
    const files = new FileStore(join(tempSolution(), 'files'));
    const formats = ['base64', 'data-uri', 'buffer', 'local-uri'] as const;
    const as = {
      base64: PNG.toString('base64'),
      'data-uri': `data:image/png;base64,${PNG.toString('base64')}`,
      buffer: PNG,
    } as Record<string, unknown>;
    as['local-uri'] = await converted(PNG, { from: 'buffer', to: 'local-uri' }, files);
    for (const from of formats) {
      for (const to of formats) {
        const out = await converted(as[from], { from, to }, files);
        const back = (await converted(out, { from: to, to: 'buffer' }, files)) as Buffer;
        expect(back.equals(PNG), `${from} -> ${to}`).toBe(true);
      }
    }
    expect(await converted(PNG, { from: 'buffer', to: 'data-uri' })).toMatch(/^data:image\/png;base64,iVBOR/);
    const uri = as['local-uri'] as string;
    expect(uri).toMatch(/^file:\/\/.*\.png$/);
    expect(readFileSync(fileURLToPath(uri)).equals(PNG)).toBe(true);
  });

  test('convertHeicToJpg decodes a real HEIC image into a JPEG', async () => {
    const out = (await converted(HEIC.toString('base64'), {
      from: 'base64',
      to: 'buffer',
      convertHeicToJpg: true,
    })) as Buffer;
    expect(isJpeg(out)).toBe(true);
    // Not HEIC: passes through unchanged.
    const png = (await converted(PNG, { from: 'buffer', to: 'buffer', convertHeicToJpg: true })) as Buffer;
    expect(png.equals(PNG)).toBe(true);
  });

  test('a value of the wrong shape, a file outside the store, or no store: clear errors naming the property', async () => {
    const files = new FileStore(join(tempSolution(), 'files'));
    await expect(converted(42, { from: 'base64', to: 'buffer' })).rejects.toMatchObject({
      code: 'CONVERSION_INPUT',
      message: "property 'v' should hold base64 text (conversion from base64)",
    });
    await expect(
      converted('file:///etc/passwd', { from: 'local-uri', to: 'base64' }, files),
    ).rejects.toMatchObject({
      code: 'CONVERSION_INPUT',
    });
    await expect(converted(PNG, { from: 'buffer', to: 'local-uri' })).rejects.toMatchObject({
      code: 'CONVERSION_UNAVAILABLE',
    });
  });

  test('a list converts each item; absent properties are left alone', async () => {
    const items = [{ img: PNG.toString('base64') }, { other: 1 }];
    await applyConversions(items, [{ property: 'img', from: 'base64', to: 'data-uri' }], undefined);
    expect(items[0]!.img).toMatch(/^data:image\/png;base64,/);
    expect(items[1]).toEqual({ other: 1 });
  });
});

describe('conversions in functions', () => {
  test('outgoing: a local file is sent as base64 in the body', async () => {
    const server = await testServer((_, res) => json(res, 201, { ok: true }));
    const { runtime, root } = syncSetup({
      'functions/rest-upload.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/upload
parameters:
  photo: { location: body, type: image, required: true }
  title: { location: body, type: string }
conversions:
  - property: photo
    from: local-uri
    to: base64
`,
    });
    const files = new FileStore(join(root, '.restfn', 'files'));
    const uri = files.save(PNG, 'png');
    const { createRuntime } = await import('../../src/runtime/runtime.js');
    const withFiles = createRuntime(runtime.solution, { files });
    await withFiles.execute('rest-upload', { photo: uri, title: 't' });
    await withFiles.close();
    const body = JSON.parse(server.requests[0]!.body);
    expect(body.title).toBe('t');
    expect(Buffer.from(body.photo, 'base64').equals(PNG)).toBe(true);
  });

  test('incoming: a synced HEIC photo lands as a JPEG file in the file store; operations use their own', async () => {
    const server = await testServer((_, res) =>
      json(res, 200, [{ id: 'p1', photo: HEIC.toString('base64') }]),
    );
    const { root } = syncSetup({});
    const files = {
      'functions/rest-get-photos.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/photos
conversions:
  - property: photo
    from: base64
    to: local-uri
    convertHeicToJpg: true
`,
      'functions/rest-get-thumbs.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/photos
forRowsWithMatchingIds: true
conversions:
  - property: photo
    from: base64
    to: local-uri
operations:
  - type: operation.upsert-replace
    table: thumbs
    conversions:
      - property: photo
        from: base64
        to: data-uri
  - type: operation.upsert-replace
    table: raw
`,
      'datasources/photos.platform': datasource('photos', 'rest-get-photos'),
      'datasources/thumbs.platform': datasource('thumbs', 'rest-get-thumbs'),
    };
    const { loadSolution } = await import('../../src/definition/solution.js');
    const { LocalStore } = await import('../../src/local/store.js');
    const { createRuntime } = await import('../../src/runtime/runtime.js');
    const solutionRoot = tempSolution(files);
    const store = new LocalStore(join(root, 'c.db'));
    const runtime = createRuntime(loadSolution(solutionRoot), {
      store,
      files: new FileStore(join(root, 'files')),
    });
    try {
      await runtime.sync('photos');
      const [photo] = store.rows('photos') as Array<{ photo: string }>;
      expect(photo!.photo).toMatch(/^file:\/\/.*\.jpg$/);
      expect(isJpeg(readFileSync(fileURLToPath(photo!.photo)))).toBe(true);

      await runtime.sync('thumbs');
      expect((store.rows('thumbs')[0] as { photo: string }).photo).toMatch(/^data:image\/heic;base64,/);
      // The second operation has no conversions, and the function-level ones do not apply to operations.
      expect((store.rows('raw')[0] as { photo: string }).photo).toBe(HEIC.toString('base64'));
      expect(existsSync(join(root, 'files'))).toBe(true);
    } finally {
      await runtime.close();
      store.close();
    }
  });
});
