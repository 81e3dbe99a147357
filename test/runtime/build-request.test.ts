import { describe, expect, test } from 'vitest';
import { buildRequest, buildUrl, type PlacedValue } from '../../src/http/build-request.js';

const v = (name: string, location: PlacedValue['location'], value: unknown): PlacedValue => ({
  name,
  location,
  value,
});

describe('URL rules (spec 4.2)', () => {
  test('path placeholders are replaced and percent-encoded', () => {
    expect(buildUrl('http://h/a/{id}/b/{name}', [v('id', 'path', 'x/y z'), v('name', 'path', 'ä&?')])).toBe(
      'http://h/a/x%2Fy%20z/b/%C3%A4%26%3F',
    );
    expect(buildUrl('http://h/{n}', [v('n', 'path', 42)])).toBe('http://h/42');
  });

  test('a query string written in url is replaced by the query parameters', () => {
    expect(buildUrl('http://h/items?limit=10&x=1', [v('limit', 'query', 5)])).toBe('http://h/items?limit=5');
    expect(buildUrl('http://h/items?limit=10', [])).toBe('http://h/items');
  });

  test('array query values repeat the key; absent values are left out', () => {
    expect(
      buildUrl('http://h/i', [
        v('tag', 'query', ['a', 'b c']),
        v('none', 'query', undefined),
        v('z', 'query', null),
      ]),
    ).toBe('http://h/i?tag=a&tag=b+c');
  });

  test('a placeholder without a value, or a relative url, is a clear error', () => {
    expect(() => buildUrl('http://h/{id}', [])).toThrow(expect.objectContaining({ code: 'INVALID_URL' }));
    expect(() => buildUrl('/relative/{id}', [v('id', 'path', 1)])).toThrow(
      expect.objectContaining({ code: 'INVALID_URL' }),
    );
  });
});

describe('headers and body', () => {
  const values = [
    v('X-Trace', 'header', 7),
    v('name', 'body', 'n'),
    v('count', 'body', 2),
    v('secretOut', 'output', 's'),
  ];

  test('header parameters become headers, body parameters one JSON object; output ones go nowhere', () => {
    const r = buildRequest('POST', 'http://h/x', values);
    expect(r.headers).toEqual({ 'x-trace': '7', 'content-type': 'application/json' });
    expect(JSON.parse(String(r.body))).toEqual({ name: 'n', count: 2 });
    expect(JSON.stringify(r)).not.toContain('secretOut');
  });

  test('the inputTransform result replaces the body parameters', () => {
    const r = buildRequest('PUT', 'http://h/x', values, { value: { wrapped: true } });
    expect(r.body).toBe('{"wrapped":true}');
  });

  test('GET and HEAD never carry a body', () => {
    for (const method of ['GET', 'HEAD']) {
      const r = buildRequest(method, 'http://h/x', values, { value: { a: 1 } });
      expect(r.body).toBeUndefined();
      expect(r.headers['content-type']).toBeUndefined();
    }
  });
});

describe('a url that cannot be built says the url it built', () => {
  test('with the values a credential filled masked, in the query and in the path', () => {
    const secret = (name: string, location: PlacedValue['location'], value: string): PlacedValue => ({
      name,
      location,
      value,
      secret: true,
    });
    const built = (template: string, values: PlacedValue[]) => {
      try {
        buildUrl(template, values);
      } catch (error) {
        return { code: (error as { code: string }).code, message: (error as Error).message };
      }
      throw new Error('built');
    };
    const relative = built('{base}/tickets/{id}', [
      v('base', 'path', 't-1'),
      v('id', 'path', 't-1'),
      secret('api_key', 'query', 'sk_live_51Habc'),
    ]);
    expect(relative).toEqual({
      code: 'INVALID_URL',
      message: 'the address built from url is not a valid absolute URL: t-1/tickets/t-1?api_key=***',
    });
    const dots = built('http://h/{id}/{token}', [v('id', 'path', '..'), secret('token', 'path', 'tok-9')]);
    expect(dots.code).toBe('INVALID_URL_VALUE');
    expect(dots.message).toBe(
      "path parameter 'id' is '..', which would move the request to another path: http://h/../***",
    );
    const missing = built('http://h/{id}?k={k}', [secret('k', 'query', 'x')]);
    expect(missing.message).toBe('url placeholder {id} has no value: http://h/{id}?k=***');
  });
});
