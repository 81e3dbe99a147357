import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { testServer } from '../helpers/http-server.js';
import { solutionWithKey, startPlatformProcess } from '../helpers/platform.js';

// Issue 36, row 1: a service at the credential's own origin that echoes it in an encoding the
// platform read as bytes (a gzip, UTF-16, XML character references) handed it to the author.

const SECRET = 'SECRET-9fQ2xL7mW4pR8tZ3';

/** Every way the secret could show in bytes or text: as it is, reversed, base64, UTF-16, references. */
function leaks(text: string | Buffer): boolean {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const forms = [
    SECRET,
    [...SECRET].reverse().join(''),
    Buffer.from(SECRET).toString('base64').slice(0, 20),
    Buffer.from(SECRET, 'utf16le').toString('base64').slice(0, 20),
  ];
  const needles = [
    ...forms.map((f) => Buffer.from(f)),
    Buffer.from(SECRET, 'utf16le'),
    Buffer.from(SECRET, 'utf16le').swap16(),
  ];
  const asText = bytes.toString('utf8');
  const decoded = asText
    .replace(/&#x([0-9a-f]+);/gi, (_m, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#([0-9]+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/\\u([0-9a-f]{4})/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  return needles.some((n) => bytes.includes(n)) || forms.some((f) => decoded.includes(f));
}

type Platform = Awaited<ReturnType<typeof startPlatformProcess>>;

/** The solution `s` with `api-key` holding SECRET, and a way to execute its functions. */
async function solution(platform: Platform, files: Record<string, string>) {
  const { author, user } = await solutionWithKey(platform, files, { secret: SECRET });
  const run = (fn: string, token: string, body: Record<string, unknown> = {}) =>
    platform.api('POST', `/api/v1/solutions/s/functions/${fn}/execute`, { token, body });
  return { author, user, run };
}

const fn = (url: string, extra: string) => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}
parameters:
  x-api-key: { location: header, type: secret, value: api-key }
${extra}`;

describe('no form of a secret leaves in an answer (issue 36, row 1)', () => {
  it('a service echoing the secret gzipped (or deflated, or br) to a pdf function: the bytes given hold no secret', async () => {
    let coding = 'gzip';
    const CODERS: Record<string, (b: Buffer) => Buffer> = {
      gzip: gzipSync,
      deflate: deflateSync,
      br: brotliCompressSync,
    };
    // The request's headers echoed back compressed (as express + compression does when asked; this
    // one compresses whatever it was asked, as the attack's `Accept-Encoding: gzip` made it).
    const service = await testServer((req, res) => {
      const body = Buffer.from(JSON.stringify({ headers: req.headers }));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': coding });
      res.end(CODERS[coding]!(body));
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { author, user, run } = await solution(platform, {
      'functions/rest-pdf.platform': fn(`${service.url}/echo`, 'format: pdf\n'),
    });
    for (coding of Object.keys(CODERS)) {
      for (const token of [user, author]) {
        const answer = await run('rest-pdf', token, token === author ? { trace: true } : {});
        expect(answer.body?.status, answer.text).toBe('ok');
        const bytes = Buffer.from(answer.body.output.data, 'base64');
        // The decoded body, the secret overwritten in place: JSON still, no coding left.
        const echoed = JSON.parse(bytes.toString('utf8')) as { headers: Record<string, string> };
        expect(echoed.headers['x-api-key']).toBe('*'.repeat(SECRET.length));
        expect(leaks(bytes), coding).toBe(false);
        expect(leaks(answer.text), coding).toBe(false);
      }
    }
    // The service did get it, at its bound origin.
    expect(service.requests.every((r) => r.headers['x-api-key'] === SECRET)).toBe(true);
  });

  it('echoed as XML character references, whole or mixed, in elements and attributes: masked for every format', async () => {
    const refs = [...SECRET].map((c, i) => (i % 2 ? `&#${c.charCodeAt(0)};` : c)).join('');
    const hex = [...SECRET].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join('');
    const service = await testServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<echo key="${hex}"><mixed>${refs}</mixed></echo>`);
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { author, user, run } = await solution(platform, {
      'functions/rest-xml.platform': fn(`${service.url}/echo`, 'format: xml\n'),
      // The author's own decoding of what a text answer holds.
      'functions/rest-text.platform': fn(
        `${service.url}/echo`,
        "format: text\noutputTransform: '$replace($, /&#(\\\\d+);/, function($m) { $m.groups[0] })'\n",
      ),
    });
    const xml = await run('rest-xml', user);
    expect(xml.body).toMatchObject({ status: 'ok', output: { echo: { '@_key': '***', mixed: '***' } } });
    const text = await run('rest-text', user);
    expect(text.body?.status, text.text).toBe('ok');
    expect(leaks(text.text)).toBe(false);
    const traced = await run('rest-xml', author, { trace: true });
    expect(traced.body.trace[0].response.body).toContain('***');
    for (const answer of [xml, text, traced]) expect(leaks(answer.text)).toBe(false);
  });

  it('echoed in UTF-16, with its charset said or not: masked before any transform or script reads it', async () => {
    let type = 'text/plain; charset=utf-16le';
    const service = await testServer((req, res) => {
      res.writeHead(200, { 'content-type': type });
      res.end(Buffer.from(`key=${req.headers['x-api-key']}`, 'utf16le'));
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { author, user, run } = await solution(platform, {
      'functions/rest-utf16.platform': fn(
        `${service.url}/echo`,
        'format: text\noutputTransform: \'{ "as": $, "squeezed": $replace($, /\\\\u0000/, "") }\'\n',
      ),
      'functions/rest-utf16-json.platform': fn(`${service.url}/echo`, 'format: pdf\n'),
    });
    for (type of ['text/plain; charset=utf-16le', 'text/plain', 'application/octet-stream']) {
      const answer = await run('rest-utf16', user);
      expect(answer.body?.status, answer.text).toBe('ok');
      expect(leaks(answer.text), type).toBe(false);
      const traced = await run('rest-utf16', author, { trace: true });
      expect(leaks(traced.text), type).toBe(false);
      const binary = await run('rest-utf16-json', user);
      expect(leaks(Buffer.from(binary.body.output.data, 'base64')), type).toBe(false);
    }
    type = 'text/plain; charset=utf-16le';
    expect((await run('rest-utf16', user)).body.output.as).toMatch(/^key=\*+$/);
  });

  it('echoed in the forms a review found: percent-encoded in lower case, wholly or in part, hex, wrapped base64, base64 of UTF-16, UTF-32, a charset the bytes are not in', async () => {
    const utf32 = (text: string, le: boolean) => {
      const out = Buffer.alloc(text.length * 4);
      [...text].forEach((c, i) => {
        if (le) out.writeUInt32LE(c.codePointAt(0)!, i * 4);
        else out.writeUInt32BE(c.codePointAt(0)!, i * 4);
      });
      return out;
    };
    const wrapped = Buffer.from(`key:${SECRET}`).toString('base64');
    /** What the service answers for each form: its content type and bytes, the secret shaped so. */
    const FORMS: Record<string, [string, Buffer]> = {
      'percent-lower': ['text/plain', Buffer.from(`k=${encodeURIComponent(SECRET).toLowerCase()}`)],
      'percent-all': [
        'text/plain',
        Buffer.from(`k=${[...Buffer.from(SECRET)].map((b) => `%${b.toString(16)}`).join('')}`),
      ],
      'percent-part': [
        'text/plain',
        Buffer.from(`k=%${SECRET.charCodeAt(0).toString(16)}${SECRET.slice(1)}`),
      ],
      hex: ['text/plain', Buffer.from(`k=${Buffer.from(SECRET).toString('hex')}`)],
      'base64-wrapped': ['text/plain', Buffer.from(`k=${wrapped.slice(0, 9)}\r\n${wrapped.slice(9)}`)],
      'base64-utf16': ['text/plain', Buffer.from(`k=${Buffer.from(SECRET, 'utf16le').toString('base64')}`)],
      'utf32le-text': ['text/plain', utf32(`k=${SECRET}`, true)],
      'utf32be-binary': ['application/octet-stream', utf32(`k=${SECRET}`, false)],
      'utf8-said-utf16': ['text/plain; charset=utf-16le', Buffer.from(`k=${SECRET}!`)],
    };
    const service = await testServer((req, res) => {
      // It answers only with the key, and echoes it in the form asked for.
      if (req.headers['x-api-key'] !== SECRET) return res.writeHead(401).end();
      const [type, bytes] = FORMS[new URL(req.url, 'http://x').searchParams.get('form')!]!;
      res.writeHead(200, { 'content-type': type });
      res.end(bytes);
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const form = '  form: { location: query, type: string, required: true }\n';
    const { user, run } = await solution(platform, {
      'functions/rest-form.platform': `${fn(`${service.url}/echo`, 'format: text\n')}`.replace(
        'parameters:\n',
        `parameters:\n${form}`,
      ),
      'functions/rest-form-pdf.platform': `${fn(`${service.url}/echo`, 'format: pdf\n')}`.replace(
        'parameters:\n',
        `parameters:\n${form}`,
      ),
    });
    for (const shape of Object.keys(FORMS)) {
      for (const name of ['rest-form', 'rest-form-pdf']) {
        // Bytes are searched as they are: base64 wrapped in lines inside a binary body is a limit
        // docs/server.md names.
        if (name === 'rest-form-pdf' && shape === 'base64-wrapped') continue;
        const answer = await run(name, user, { parameters: { form: shape } });
        expect(answer.body?.status, `${shape} ${answer.text}`).toBe('ok');
        const output = answer.body.output as string | { data: string };
        // What a script could do with it: read it as text, or its characters as bytes.
        const views =
          typeof output === 'string'
            ? [
                output,
                Buffer.from(output, 'utf16le').toString('latin1'),
                Buffer.from(output, 'latin1').toString('utf8'),
              ]
            : [Buffer.from(output.data, 'base64').toString('latin1')];
        for (const view of views)
          expect(decodesToSecret(view), `${name} ${shape}: ${view.slice(0, 60)}`).toBe(false);
        expect(leaks(answer.text), `${name} ${shape}`).toBe(false);
      }
    }
  });

  /** Whether a script could get the secret back out of `text` by undoing one encoding. */
  function decodesToSecret(text: string): boolean {
    const views = [text, text.replaceAll('\0', ''), text.replace(/\s+/g, '')];
    try {
      views.push(decodeURIComponent(text));
    } catch {}
    for (const v of [...views]) {
      const b64 = v.replace(/^k=/, '');
      views.push(Buffer.from(b64, 'base64').toString('utf8'), Buffer.from(b64, 'base64').toString('utf16le'));
      if (/^[0-9a-f]+$/i.test(b64)) views.push(Buffer.from(b64, 'hex').toString('utf8'));
    }
    return views.some((v) => v.includes(SECRET));
  }

  it('a coding the platform does not decode is RESPONSE_ENCODING, never bytes passed on', async () => {
    const service = await testServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': 'zstd' });
      res.end(Buffer.from(String(req.headers['x-api-key'])));
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { user, run } = await solution(platform, {
      'functions/rest-zstd.platform': fn(`${service.url}/echo`, 'format: pdf\n'),
    });
    const answer = await run('rest-zstd', user);
    expect(answer.status).toBe(502);
    expect(answer.body).toMatchObject({ status: 'error', code: 'RESPONSE_ENCODING' });
    expect(leaks(answer.text)).toBe(false);
  });

  it('a function that sets Accept-Encoding is refused at publish: HEADER_RESERVED at its line', async () => {
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const answer = await platform.api('PUT', '/api/v1/solutions/s', {
      token: platform.adminToken,
      body: {
        files: {
          'solution.yaml': 'name: s\n',
          'functions/rest-gz.platform': fn('https://api.example.com/x', 'format: pdf\n').replace(
            'parameters:\n',
            'parameters:\n  Accept-Encoding: { location: header, type: string, value: gzip }\n',
          ),
        },
      },
    });
    expect(answer.status).toBe(422);
    const finding = answer.body.findings.find((f: { code: string }) => f.code === 'HEADER_RESERVED');
    expect(finding).toMatchObject({ at: 'functions/rest-gz.platform:5:3', severity: 'error' });
  });
});
