import { describe, expect, test } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';

const SECRET = 'Rd7kQ2vLm9Xp4Tz8Wn3B';
const secretProvider = {
  apply: async (r: { parameter: string; location: 'header' | 'query' | 'path' | 'body' | 'output' }) => ({
    values: [{ name: r.parameter, location: r.location, value: SECRET }],
  }),
};

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const STATUSES = [301, 302, 303, 307, 308] as const;

/**
 * RFC 9110 section 15.4 as fetch applies it: 303 turns every method but HEAD into a GET without a
 * body; 301 and 302 turn only POST into one (the RFC allows it, and every browser does it); 307 and
 * 308 repeat the request as it was, body included. A request turned into a GET loses its
 * content-specific header fields (Content-Type, Content-Language, Content-Encoding, ...), as 15.4
 * asks; a repeated request keeps them.
 */
function expected(method: string, status: number): { method: string; body: boolean } {
  const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  if (toGet) return { method: 'GET', body: false };
  return { method, body: method !== 'GET' && method !== 'HEAD' && method !== 'DELETE' };
}

describe('redirects: one path for every request, with the same method rules', () => {
  test.each(['without', 'with'])('every method x status, %s a credential', async (credential) => {
    const server = await testServer((req, res) => {
      const status = /^\/from\/(\d+)$/.exec(req.url)?.[1];
      if (status) res.writeHead(Number(status), { location: '/to' }).end();
      else json(res, 200, { ok: true });
    });
    const cases = METHODS.flatMap((method) => STATUSES.map((status) => ({ method, status })));
    for (const { method, status } of cases) {
      const hasBody = method !== 'GET' && method !== 'HEAD' && method !== 'DELETE';
      const parameters =
        (hasBody
          ? '  name:\n    location: body\n    type: string\n    value: ada\n' +
            '  Content-Language:\n    location: header\n    type: string\n    value: en\n'
          : '') +
        (credential === 'with' ? '  x-api-key: { location: header, type: secret, value: k }\n' : '');
      const runtime = runtimeFor(
        {
          'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: ${method}\nurl: ${server.url}/from/${status}\n${parameters ? `parameters:\n${parameters}` : ''}`,
        },
        credential === 'with' ? { credentials: secretProvider } : {},
      );
      const before = server.requests.length;
      await runtime.execute('fn');
      const [first, second, ...more] = server.requests.slice(before);
      expect(more, `${method} ${status}`).toEqual([]);
      expect(first, `${method} ${status}`).toMatchObject({ method, url: `/from/${status}` });
      const want = expected(method, status);
      expect({ method: second!.method, url: second!.url }, `${method} ${status}`).toEqual({
        method: want.method,
        url: '/to',
      });
      expect(second!.body, `${method} ${status}: body`).toBe(want.body ? '{"name":"ada"}' : '');
      if (!want.body) {
        expect(second!.headers['content-type'], `${method} ${status}`).toBeUndefined();
        expect(second!.headers['content-language'], `${method} ${status}`).toBeUndefined();
      } else {
        expect(second!.headers['content-language'], `${method} ${status}`).toBe('en');
      }
      // Same origin: the credential goes along.
      if (credential === 'with') expect(second!.headers['x-api-key'], `${method} ${status}`).toBe(SECRET);
    }
  });
});
