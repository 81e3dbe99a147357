import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { CredentialProvider } from '../../src/auth/credential-provider.js';
import { FileStore } from '../../src/local/files.js';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';
import { FIXTURES, tempSolution } from '../helpers/temp-solution.js';

const fn = (yaml: string) => ({ 'functions/fn.platform': yaml });
const jpeg = readFileSync(join(FIXTURES, 'images', 'sample-32x24.jpg'));
const SECRET = 'sk_live_f0rm+&=secret/é';

/** Every credential is SECRET. */
const secretProvider: CredentialProvider = {
  async apply(r) {
    return { values: [{ name: r.parameter, location: r.location, value: SECRET }] };
  },
};

/** A multipart body as a browser's FormData reads it (undici's parser): a real second opinion. */
async function partsOf(req: { headers: Record<string, unknown>; bytes: Buffer }) {
  const form = await new Response(req.bytes, {
    headers: { 'content-type': String(req.headers['content-type']) },
  }).formData();
  return [...form.entries()];
}

describe('request bodies beyond JSON, chosen by the Content-Type parameter', () => {
  test('application/x-www-form-urlencoded: nested objects and lists in the bracket form Stripe reads; a credential form-encoded', async () => {
    const server = await testServer((_, res) => json(res, 200, { ok: true }));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/v1/customers
parameters:
  Content-Type: { location: header, type: string, value: application/x-www-form-urlencoded }
  email: { location: body, type: string }
  metadata: { location: body, type: object }
  expand: { location: body, type: array }
  items: { location: body, type: array }
  description: { location: body, type: string }
  api_key: { location: body, type: secret, value: stripe }
`),
      { credentials: secretProvider },
    );
    const events: Array<Record<string, unknown>> = [];
    runtime.on((e) => {
      if (e.type === 'request') events.push(e as never);
    });
    await runtime.execute('fn', {
      email: 'ada@example.com',
      metadata: { plan: 'pro', nested: { a: 1 } },
      expand: ['customer', 'invoice'],
      items: [{ price: 'p_1', quantity: 2 }],
      description: null,
    });
    const [req] = server.requests;
    expect(req!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const body = req!.bytes.toString();
    expect([...new URLSearchParams(body)]).toEqual([
      ['email', 'ada@example.com'],
      ['metadata[plan]', 'pro'],
      ['metadata[nested][a]', '1'],
      ['expand[]', 'customer'],
      ['expand[]', 'invoice'],
      ['items[0][price]', 'p_1'],
      ['items[0][quantity]', '2'],
      ['api_key', SECRET],
    ]);
    // The trace shows the form with the credential masked.
    expect(String(events[0]!.body)).toContain('api_key=***');
    expect(JSON.stringify(events)).not.toContain('f0rm');
  });

  test('multipart/form-data: text parts, nested fields, and file parts from a device file, base64 and a data URI, named and typed', async () => {
    const server = await testServer((_, res) => json(res, 200, { ok: true }));
    const root = tempSolution();
    const files = new FileStore(join(root, '.restfn', 'files'));
    const uri = files.save(jpeg, 'jpg');
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/v1/files
parameters:
  Content-Type: { location: header, type: string, value: multipart/form-data }
  purpose: { location: body, type: string, value: identity_document }
  file: { location: body, type: file }
  thumb: { location: body, type: image }
  note: { location: body, type: file }
  file_link_data: { location: body, type: object }
  token: { location: body, type: secret, value: stripe }
`),
      { files, credentials: secretProvider },
    );
    const events: Array<Record<string, unknown>> = [];
    runtime.on((e) => {
      if (e.type === 'request') events.push(e as never);
    });
    await runtime.execute('fn', {
      file: uri,
      thumb: jpeg.toString('base64'),
      note: `data:text/plain;base64,${Buffer.from('hello').toString('base64')}`,
      file_link_data: { create: true },
    });
    const [req] = server.requests;
    expect(req!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=----restfn[0-9a-f]+$/);
    const parts = await partsOf(req!);
    expect(parts.map(([name]) => name)).toEqual([
      'purpose',
      'file',
      'thumb',
      'note',
      'file_link_data[create]',
      'token',
    ]);
    const get = (name: string) => parts.find(([n]) => n === name)![1];
    expect(get('purpose')).toBe('identity_document');
    expect(get('file_link_data[create]')).toBe('true');
    expect(get('token')).toBe(SECRET);
    const file = get('file') as File;
    expect(file.name).toMatch(/\.jpg$/);
    expect(file.type).toBe('image/jpeg');
    expect(Buffer.from(await file.arrayBuffer()).equals(jpeg)).toBe(true);
    const thumb = get('thumb') as File;
    expect([thumb.name, thumb.type]).toEqual(['thumb', 'image/jpeg']);
    expect(Buffer.from(await thumb.arrayBuffer()).equals(jpeg)).toBe(true);
    const note = get('note') as File;
    expect([note.type, await note.text()]).toEqual(['text/plain', 'hello']);
    // The trace: the text parts as sent, the credential masked, each file a placeholder.
    const shown = String(events[0]!.body);
    expect(shown).toContain('name="purpose"\r\n\r\nidentity_document');
    expect(shown).toContain(`<${jpeg.length} bytes>`);
    expect(shown).toContain('name="token"\r\n\r\n***');
    expect(JSON.stringify(events)).not.toContain('f0rm');
  });

  test("a file parameter that is the body's only field goes raw under a binary type (Jigx's update-profile-picture)", async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const root = tempSolution();
    const files = new FileStore(join(root, '.restfn', 'files'));
    const uri = files.save(jpeg, 'jpg');
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: PUT
url: ${server.url}/me/photo/$value
parameters:
  Content-Type: { location: header, type: string, value: image/jpeg }
  file: { location: body, type: image }
`),
      { files },
    );
    await runtime.execute('fn', { file: uri });
    const [req] = server.requests;
    expect(req!.headers['content-type']).toBe('image/jpeg');
    expect(req!.bytes.equals(jpeg)).toBe(true);
  });

  test('text types send a text body as it is; a file outside the store, bad base64 and a list as a form are coded errors', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const root = tempSolution();
    const files = new FileStore(join(root, '.restfn', 'files'));
    const runtime = runtimeFor(
      {
        ...fn(`provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/xml
parameters:
  Content-Type: { location: header, type: string, value: application/xml }
  doc: { location: body, type: string }
inputTransform: doc
`),
        'functions/upload.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/upload
parameters:
  Content-Type: { location: header, type: string, value: multipart/form-data }
  file: { location: body, type: file }
`,
        'functions/form.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/form
parameters:
  Content-Type: { location: header, type: string, value: application/x-www-form-urlencoded }
inputTransform: '["a", "b"]'
`,
      },
      { files },
    );
    await runtime.execute('fn', { doc: '<a>1</a>' });
    expect(server.requests[0]!.bytes.toString()).toBe('<a>1</a>');
    await expect(runtime.execute('upload', { file: 'file:///etc/passwd' })).rejects.toMatchObject({
      code: 'CONVERSION_INPUT',
    });
    await expect(runtime.execute('upload', { file: 'not base64 at all!' })).rejects.toMatchObject({
      code: 'FILE_VALUE',
    });
    await expect(runtime.execute('form')).rejects.toMatchObject({ code: 'BODY_ENCODING' });
    expect(server.requests).toHaveLength(1);
    // Without a file store (the platform), a device's file:// value is refused: the device sends bytes.
    const platformLike = runtimeFor({
      'functions/upload.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/upload
parameters:
  Content-Type: { location: header, type: string, value: multipart/form-data }
  file: { location: body, type: file }
`,
    });
    await expect(platformLike.execute('upload', { file: files.save(jpeg, 'jpg') })).rejects.toMatchObject({
      code: 'FILE_VALUE',
    });
  });
});

describe('bodies: what a trial found', () => {
  test('a lone file in a multipart body is a file part; a form list with style form repeats its key; several fields under a binary type are refused; a link out of the file store is not followed; the trace shows the boundary sent', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const root = tempSolution();
    const files = new FileStore(join(root, '.restfn', 'files'));
    const uri = files.save(jpeg, 'jpg');
    symlinkSync('/etc/hostname', join(root, '.restfn', 'files', 'link'));
    const header = (type: string) => `  Content-Type: { location: header, type: string, value: ${type} }\n`;
    const runtime = runtimeFor(
      {
        'functions/one.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${server.url}/one\nparameters:\n${header('multipart/form-data')}  doc: { location: body, type: file }\n  key: { location: header, type: secret, value: k }\n`,
        'functions/media.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${server.url}/media\nparameters:\n${header('application/x-www-form-urlencoded')}  MediaUrl: { location: body, type: array, style: form }\n  Tags: { location: body, type: array }\n`,
        'functions/bin.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${server.url}/bin\nparameters:\n${header('application/octet-stream')}  file: { location: body, type: file }\n  name: { location: body, type: string }\n`,
      },
      { files, credentials: secretProvider },
    );
    const events: Array<Record<string, unknown>> = [];
    runtime.on((e) => {
      if (e.type === 'request') events.push(e as never);
    });
    await runtime.execute('one', { doc: uri });
    const [one] = server.requests;
    const parts = await partsOf(one!);
    expect(parts.map(([n]) => n)).toEqual(['doc']);
    expect(Buffer.from(await (parts[0]![1] as File).arrayBuffer()).equals(jpeg)).toBe(true);
    const sentBoundary = /boundary=(\S+)/.exec(String(one!.headers['content-type']))![1]!;
    expect(String(events[0]!.body)).toContain(`--${sentBoundary}`);

    await runtime.execute('media', { MediaUrl: ['https://a', 'https://b'], Tags: ['x'] });
    expect(server.requests[1]!.body).toBe('MediaUrl=https%3A%2F%2Fa&MediaUrl=https%3A%2F%2Fb&Tags%5B%5D=x');

    await expect(runtime.execute('bin', { file: uri, name: 'x' })).rejects.toMatchObject({
      code: 'BODY_ENCODING',
    });
    await expect(
      runtime.execute('one', { doc: pathToFileURL(join(root, '.restfn', 'files', 'link')).href }),
    ).rejects.toMatchObject({
      code: 'CONVERSION_INPUT',
      message: expect.stringContaining('outside the file store'),
    });
    expect(server.requests).toHaveLength(2);
  });
});

describe('query styles', () => {
  test('deepObject, form with and without explode, pipe and space delimited; no style keeps lists repeated and objects as JSON', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/v1/charges
parameters:
  expand: { location: query, type: array, style: deepObject }
  created: { location: query, type: object, style: deepObject }
  ids: { location: query, type: array, style: form, explode: false }
  point: { location: query, type: object, style: form }
  tags: { location: query, type: array, style: pipeDelimited }
  words: { location: query, type: array, style: spaceDelimited }
  plain: { location: query, type: array }
  filter: { location: query, type: object }
`),
    );
    await runtime.execute('fn', {
      expand: ['customer', 'invoice'],
      created: { gt: 1700000000, lte: 1800000000 },
      ids: [1, 2, 3],
      point: { x: 1, y: 2 },
      tags: ['a', 'b'],
      words: ['c', 'd'],
      plain: ['e', 'f'],
      filter: { k: 'v' },
    });
    const query = [...new URL(server.requests[0]!.url, 'http://x').searchParams];
    expect(query).toEqual([
      ['expand[]', 'customer'],
      ['expand[]', 'invoice'],
      ['created[gt]', '1700000000'],
      ['created[lte]', '1800000000'],
      ['ids', '1,2,3'],
      ['x', '1'],
      ['y', '2'],
      ['tags', 'a|b'],
      ['words', 'c d'],
      ['plain', 'e'],
      ['plain', 'f'],
      ['filter', '{"k":"v"}'],
    ]);
  });
});
