import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { validateSolution } from '../../src/definition/validate.js';
import { contentCodings } from '../../src/http/content-coding.js';
import { testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';
import { tempSolution } from '../helpers/temp-solution.js';

const BODY = JSON.stringify({ items: [{ id: 1, name: 'Ada' }], note: 'é€😀' });

const CODERS: Record<string, (b: Buffer) => Buffer> = {
  gzip: gzipSync,
  'x-gzip': gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
};

function fn(url: string, extra = ''): Record<string, string> {
  return {
    'functions/rest-get.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${url}\n${extra}`,
  };
}

describe('response content codings are undone before anything reads the body', () => {
  it('asks for gzip, deflate and br, and reads each (raw deflate too) as the body the service meant', async () => {
    let coding = 'gzip';
    const server = await testServer((_req, res) => {
      const bytes = coding === 'raw-deflate' ? deflateRawSync(BODY) : CODERS[coding]!(Buffer.from(BODY));
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': coding === 'raw-deflate' ? 'deflate' : coding,
        'content-length': String(bytes.length),
      });
      res.end(bytes);
    });
    const runtime = runtimeFor(
      fn(`${server.url}/x`, 'outputTransform: \'{ "body": $, "headers": $.headers }\'\n'),
    );
    for (coding of [...Object.keys(CODERS), 'raw-deflate']) {
      const events: Array<{ type: string; headers?: Record<string, string> }> = [];
      const stop = runtime.on((e) => events.push(e as never));
      const result = await runtime.execute('rest-get');
      stop();
      expect(result, coding).toMatchObject({ status: 'ok', output: { body: JSON.parse(BODY) } });
      // The headers describe the bytes given: no coding, the decoded length.
      const response = events.find((e) => e.type === 'response')!;
      expect(response.headers!['content-encoding'], coding).toBeUndefined();
      expect(response.headers!['content-length'], coding).toBe(String(Buffer.byteLength(BODY)));
    }
    expect(server.requests.every((r) => r.headers['accept-encoding'] === 'gzip, deflate, br')).toBe(true);
  });

  it('codings applied one after another are undone last first', async () => {
    const server = await testServer((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'deflate, identity, gzip',
      });
      res.end(gzipSync(deflateSync(BODY)));
    });
    const result = await runtimeFor(fn(`${server.url}/x`)).execute('rest-get');
    expect(result).toMatchObject({ status: 'ok', output: JSON.parse(BODY) });
  });

  it('a coding restfn does not decode, or bytes that are not what the coding says, is RESPONSE_ENCODING', async () => {
    let answer: [string, Buffer] = ['compress', Buffer.from('x')];
    const server = await testServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': answer[0] });
      res.end(answer[1]);
    });
    const runtime = runtimeFor(fn(`${server.url}/x`));
    for (answer of [
      ['compress', Buffer.from('x')],
      ['zstd', Buffer.from('x')],
      ['gzip', Buffer.from('not gzip at all')],
      ['br', Buffer.from('{"plain": "json"}')],
    ] as Array<[string, Buffer]>) {
      const error = await runtime.execute('rest-get').catch((e: unknown) => e);
      expect(error, answer[0]).toMatchObject({ code: 'RESPONSE_ENCODING' });
      expect((error as Error).message).toContain(answer[0]);
    }
  });

  it('a small gzip that inflates past the response limit stops at the limit (RESPONSE_TOO_LARGE)', async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const server = await testServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const runtime = runtimeFor({
      ...fn(`${server.url}/x`, 'format: text\n'),
      'solution.yaml': 'name: s\nsettings:\n  http:\n    maxResponseMb: 1\n',
    });
    await expect(runtime.execute('rest-get')).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
  });

  it('contentCodings reads the header as a list, identity left out, the first unknown named', () => {
    expect(contentCodings(undefined)).toEqual({ codings: [] });
    expect(contentCodings(' GZIP , identity,br ')).toEqual({ codings: ['gzip', 'br'] });
    expect(contentCodings('gzip, aes128gcm, br')).toEqual({ codings: ['gzip'], unknown: 'aes128gcm' });
  });
});

describe('text is read in its character set', () => {
  const cases: Array<[string, string, Buffer]> = [
    ['utf-16le', 'text/plain; charset=utf-16le', Buffer.from('Grüße 😀', 'utf16le')],
    ['utf-16be', 'text/plain; charset="UTF-16BE"', Buffer.from('Grüße 😀', 'utf16le').swap16()],
    ['a BOM', 'text/plain', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grüße 😀', 'utf16le')])],
    ['latin1', 'text/plain; charset=iso-8859-1', Buffer.from('Grüße', 'latin1')],
  ];
  it.each(cases)('%s', async (_name, type, bytes) => {
    const server = await testServer((_req, res) => {
      res.writeHead(200, { 'content-type': type });
      res.end(bytes);
    });
    const result = await runtimeFor(fn(`${server.url}/x`, 'format: text\n')).execute('rest-get');
    expect(result).toMatchObject({ status: 'ok', output: expect.stringMatching(/^Grüße( 😀)?$/) });
  });

  it('JSON in UTF-16, and XML whose declaration names its encoding', async () => {
    let answer: [string, Buffer] = ['', Buffer.alloc(0)];
    const server = await testServer((_req, res) => {
      res.writeHead(200, { 'content-type': answer[0] });
      res.end(answer[1]);
    });
    answer = ['application/json; charset=utf-16', Buffer.from('{"name":"Zoë"}', 'utf16le')];
    const json = runtimeFor(fn(`${server.url}/x`));
    expect(await json.execute('rest-get')).toMatchObject({ output: { name: 'Zoë' } });
    answer = [
      'application/xml',
      Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><a>Zoë &#65;&#x42;</a>', 'latin1'),
    ];
    const xml = runtimeFor(fn(`${server.url}/x`, 'format: xml\n'));
    expect(await xml.execute('rest-get')).toMatchObject({ output: { a: 'Zoë AB' } });
  });

  it('a charset that is no encoding is RESPONSE_ENCODING', async () => {
    const server = await testServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=klingon-8' });
      res.end('x');
    });
    const error = await runtimeFor(fn(`${server.url}/x`, 'format: text\n'))
      .execute('rest-get')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RESPONSE_ENCODING' });
    expect((error as Error).message).toContain("'klingon-8'");
  });
});

describe("headers that decide how bytes are read are restfn's own", () => {
  const file = (url: string) =>
    fn(
      url,
      `parameters:
  Accept-Encoding: { location: header, type: string, value: identity }
  x-ok: { location: header, type: string, value: yes }
  continuation-less: { location: query, type: string, value: q }
continuation:
  when: 'false'
  parameters:
    TE: { location: header, type: string, value: trailers }
`,
    );

  it('validate says HEADER_RESERVED at the parameter, for every hop-by-hop and framing header', async () => {
    const root = tempSolution(file('https://api.example.com/x'));
    const result = await validateSolution(loadSolution(root, { displayBase: root }));
    const found = result.diagnostics.filter((d) => d.code === 'HEADER_RESERVED');
    expect(found.map((d) => `${d.line}:${d.col}`)).toEqual(['5:3', '11:5']);
    expect(found[0]!.message).toContain("'Accept-Encoding' is one restfn sets itself");
  });

  it('a definition that has one anyway (published before) runs with the header dropped', async () => {
    const server = await testServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await runtimeFor(file(`${server.url}/x`)).execute('rest-get');
    expect(server.requests[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(server.requests[0]!.headers['x-ok']).toBe('yes');
  });
});
