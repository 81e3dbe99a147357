import { describe, expect, test } from 'vitest';
import { type PmItem, readCollection } from '../../src/import/postman-collection.js';

// Postman collections are read as JSON, without Postman's SDK (issue 38): the readings Postman
// makes of its own format, checked on what exports hold.
const items = (data: unknown): PmItem[] => {
  const found: PmItem[] = [];
  readCollection(data).forEachItem((item) => found.push(item));
  return found;
};

describe('a Postman collection read as JSON', () => {
  test('a url given as text is split as Postman splits it; a {{variable}} is one piece', () => {
    const [item] = items({
      info: { name: 'c' },
      item: [{ name: 'a', request: '{{base.url}}:{{port}}/pets/:id/{{a/b}}?limit=2&q&x=a=b#frag' }],
    });
    const url = item!.request.url;
    expect(item!.request.method).toBe('GET');
    expect(url.host).toEqual(['{{base.url}}']);
    expect(url.port).toBe('{{port}}');
    expect(url.path).toEqual(['pets', ':id', '{{a/b}}']);
    expect(url.query.all()).toEqual([
      { key: 'limit', value: '2' },
      { key: 'q', value: null },
      { key: 'x', value: 'a=b' },
    ]);
    expect(url.variables.all()).toEqual([{ key: 'id' }]);
  });

  test('a url object with only its raw text, text headers, and a v2.0 auth object', () => {
    const [item] = items({
      info: { name: 'c' },
      item: [
        {
          name: 'a',
          request: {
            method: 'post',
            url: { raw: 'https://api.example.com/v1/things?x=1' },
            header: 'Accept: application/xml\nX-Trace: a:b',
            auth: { type: 'bearer', bearer: { token: '{{tok}}' } },
          },
        },
      ],
    });
    const request = item!.request;
    expect(request.method).toBe('POST');
    expect([request.url.protocol, request.url.host, request.url.path]).toEqual([
      'https',
      ['api', 'example', 'com'],
      ['v1', 'things'],
    ]);
    expect(request.headers.all().map((h) => [h.key, h.value])).toEqual([
      ['Accept', 'application/xml'],
      ['X-Trace', 'a:b'],
    ]);
    expect(request.auth).toEqual({ type: 'bearer', fields: { token: '{{tok}}' } });
  });

  test("folders are items holding 'item': each request knows its folder, whose auth it inherits", () => {
    const collection = readCollection({
      info: { name: 'Shop' },
      variable: [
        { key: 'baseUrl', value: 'https://x' },
        { key: 'off', value: 1, disabled: true },
      ],
      auth: { type: 'apikey', apikey: [{ key: 'key', value: 'X-Key' }] },
      item: [{ name: 'Orders', item: [{ name: 'list', request: { url: { host: 'h', path: '/o/' } } }] }],
    });
    expect(collection.variables).toEqual({ baseUrl: 'https://x', off: 1 });
    expect(collection.auth).toEqual({ type: 'apikey', fields: { key: 'X-Key' } });
    const found: PmItem[] = [];
    collection.forEachItem((item) => found.push(item));
    expect(found.map((i) => [i.name, i.parent()?.name, i.parent()?.parent()])).toEqual([
      ['list', 'Orders', collection],
    ]);
    expect(found[0]!.request.url.path).toEqual(['o', '']);
  });

  test('what is not a collection says what is missing', () => {
    expect(() => readCollection([])).toThrow('not a JSON object');
    expect(() => readCollection({ info: { name: 'x' } })).toThrow("no 'item' list");
  });
});
