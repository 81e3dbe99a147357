import { describe, expect, test } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';

// What the per-function plan (src/runtime/plan.ts) decides once must give what deciding it on every
// call gave: the transform's extras where it can read them, defaults in order, url checks.
describe('the function plan', () => {
  test("an outputTransform reads headers, status and inputs of its $ (also through $lookup); one that does not gets the body's own keys", async () => {
    const server = await testServer((_, res) => json(res, 200, { a: 1 }, { 'x-page': '7' }));
    const fn = (transform: string) =>
      `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\nparameters:\n  q: { location: query, type: string }\noutputTransform: '${transform}'\n`;
    const runtime = runtimeFor({
      'functions/extras.platform': fn(
        '{ "page": $$.headers."x-page", "status": status, "q": inputs.q.value }',
      ),
      'functions/lookup.platform': fn('{ "page": $lookup($lookup($, "head" & "ers"), "x-page") }'),
      'functions/plain.platform': fn('{ "keys": $keys($), "a": a, "all": $ }'),
    });
    expect(await runtime.execute('extras', { q: 'z' })).toMatchObject({
      output: { page: '7', status: 200, q: 'z' },
    });
    expect(await runtime.execute('lookup')).toMatchObject({ output: { page: '7' } });
    expect(await runtime.execute('plain')).toMatchObject({ output: { keys: 'a', a: 1, all: { a: 1 } } });
  });

  test('fixed and expression defaults resolve in declaration order; every missing one is reported at once', async () => {
    const server = await testServer((req, res) => json(res, 200, { url: req.url }));
    const runtime = runtimeFor({
      'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
parameters:
  a: { location: query, type: string, value: one }
  b: { location: query, type: string, value: '=@ctx.parameters.a & "-two"' }
  c: { location: query, type: number, value: 3 }
  d: { location: query, type: string, value: '=@ctx.parameters.b & "-" & $string(@ctx.parameters.c)' }
`,
      'functions/missing.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x/{id}
parameters:
  id: { location: path, type: string }
  a: { location: query, type: string, value: '=""' }
  b: { location: query, type: string, required: true }
`,
    });
    expect(await runtime.execute('fn')).toMatchObject({
      output: { url: '/x?a=one&b=one-two&c=3&d=one-two-3' },
    });
    expect(await runtime.execute('fn', { a: 'x', c: '4' })).toMatchObject({
      output: { url: '/x?a=x&b=x-two&c=4&d=x-two-4' },
    });
    const error = await runtime.execute('missing').catch((e) => e);
    expect(error).toMatchObject({ code: 'PARAMETER_REQUIRED' });
    expect(error.message).toContain("'id', 'b'");
  });

  test('a url with a placeholder in its address is checked on every call, not only the first', async () => {
    const server = await testServer((req, res) => json(res, 200, { url: req.url }));
    const runtime = runtimeFor({
      'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: '{base}/x'\nparameters:\n  base: { location: path, type: string }\n`,
    });
    expect(await runtime.execute('fn', { base: server.url })).toMatchObject({ output: { url: '/x' } });
    const error = await runtime.execute('fn', { base: 'file:///etc' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'INVALID_URL' });
  });
});
