import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import { parse } from 'yaml';
import { parseDefinition } from '../../src/definition/schema/compiled.js';
import { type FileKind, SCHEMAS } from '../../src/definition/schema/index.js';
import { EXAMPLES, FIXTURES } from '../helpers/temp-solution.js';

// The compiled checks (src/definition/schema/compiled.ts) answer for zod when data passes them: the
// same success, and the same output (values, defaults, key order). Held to zod on every definition
// file the tests and examples have, valid and broken, and on random changes of valid ones.

/** Every definition file under `root` with its kind, as the folder it sits in says. */
function definitionFiles(root: string): Array<{ kind: FileKind; path: string; data: unknown }> {
  const found: Array<{ kind: FileKind; path: string; data: unknown }> = [];
  for (const entry of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const parts = entry.split(sep);
    const name = parts.at(-1)!;
    const kind: FileKind | undefined =
      name === 'solution.yaml'
        ? 'solution'
        : !name.endsWith('.platform')
          ? undefined
          : parts.includes('datasources')
            ? 'datasource'
            : parts.includes('actions')
              ? 'action'
              : 'function';
    if (!kind) continue;
    let data: unknown;
    try {
      data = parse(readFileSync(join(root, entry), 'utf8'));
    } catch {
      continue; // Not YAML at all: no schema sees it.
    }
    found.push({ kind, path: relative(process.cwd(), join(root, entry)), data });
  }
  return found;
}

/** Equal as zod's answer: success, and the output with the same keys in the same order. */
function expectSameAnswer(kind: FileKind, data: unknown, label: string): boolean {
  const schema = SCHEMAS[kind];
  const ours = parseDefinition<unknown>(schema, data);
  const zods = schema.safeParse(data);
  expect(ours.success, label).toBe(zods.success);
  if (zods.success) expect(shape(ours.data), label).toEqual(shape(zods.data));
  return zods.success;
}

/** A value with its objects as [key, value] lists, so that key order counts. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).map(([k, v]) => [k, shape(v)]);
  return value;
}

const FILES = [...definitionFiles(FIXTURES), ...definitionFiles(EXAMPLES)];

describe('compiled definition schemas', () => {
  test('answer as zod does for every definition file of the tests and examples', () => {
    let valid = 0;
    for (const { kind, path, data } of FILES) if (expectSameAnswer(kind, data, path)) valid++;
    // Both kinds were there: valid files (answered compiled) and broken ones (left to zod).
    expect(valid).toBeGreaterThan(20);
    expect(FILES.length - valid).toBeGreaterThan(10);
  });

  test('answer a valid file without zod, and a broken one with zod’s messages', () => {
    const schema = SCHEMAS.function;
    const spy = vi.spyOn(schema, 'safeParse');
    try {
      const valid = {
        provider: 'DATA_PROVIDER_REST',
        method: 'GET',
        url: 'https://api.example.com/items/{id}',
        parameters: { id: { location: 'path', type: 'string', required: true } },
        error: [{ when: '=@ctx.response.status = 429', retry: { delay: 5000, maxRetries: 3 } }],
      };
      const ok = parseDefinition(schema, valid);
      expect(ok.success && ok.data.format).toBe('json');
      expect(spy).not.toHaveBeenCalled();
      const broken = parseDefinition(schema, { ...valid, methd: 'GET' });
      expect(spy).toHaveBeenCalledTimes(1);
      expect(broken.success).toBe(false);
      expect(broken.error?.issues[0]?.message).toContain("unknown key 'methd'");
    } finally {
      spy.mockRestore();
    }
  });

  test('leave to zod what they cannot judge exactly: a url setting, dates, sets and bytes', () => {
    // z.url() is a string with its check on the schema itself: the solution schema is zod's.
    for (const url of ['ftp://x.example/', 'not a url', ' https://x.example/ ']) {
      expectSameAnswer('solution', { name: 's', settings: { platform: { url } } }, url);
    }
    expect(
      parseDefinition(SCHEMAS.solution, { name: 's', settings: { platform: { url: 'ftp://x' } } }).success,
    ).toBe(false);
    // Records take plain objects only, as zod's do.
    const fn = { provider: 'DATA_PROVIDER_REST', method: 'GET', url: 'https://api.example.com/x' };
    for (const odd of [
      new Date(0),
      new Set(['a']),
      new Uint8Array([104, 105]),
      Buffer.from('hi'),
      new Map(),
    ]) {
      expect(parseDefinition(SCHEMAS.function, { ...fn, parameters: odd }).success).toBe(false);
      expectSameAnswer('function', { ...fn, parameters: odd }, String(odd));
      expectSameAnswer('function', { ...fn, forRowsWithValues: odd }, String(odd));
    }
  });

  test('answer as zod does for random changes of valid files', () => {
    const valid = FILES.filter(({ kind, data }) => SCHEMAS[kind].safeParse(data).success);
    let stillValid = 0;
    const json = fc.jsonValue({ maxDepth: 2 });
    const change = fc.record({
      file: fc.nat({ max: valid.length - 1 }),
      // Which node to change (by its position in a walk), and how.
      at: fc.nat(),
      how: fc.constantFrom(
        'delete',
        'replace',
        'add-key',
        'undefined',
        'null',
        'empty-string',
        'float',
        'infinity',
        'date',
        'set',
        'bytes',
        'null-prototype',
        'nan',
        'int',
      ),
      value: json,
      key: fc.constantFrom('type', 'location', 'when', 'retry', 'extra', '__proto__', 'url', 'method'),
    });
    fc.assert(
      fc.property(change, ({ file, at, how, value, key }) => {
        const { kind, path, data } = valid[file]!;
        const copy = structuredClone(data);
        const holders: Array<[Record<string, unknown> | unknown[], string | number]> = [];
        const walk = (node: unknown) => {
          if (Array.isArray(node)) {
            for (const [i, item] of node.entries()) {
              holders.push([node, i]);
              walk(item);
            }
          } else if (node !== null && typeof node === 'object') {
            for (const [k, v] of Object.entries(node)) {
              holders.push([node as Record<string, unknown>, k]);
              walk(v);
            }
          }
        };
        walk(copy);
        if (holders.length === 0) return;
        const [holder, slot] = holders[at % holders.length]!;
        const target = holder as Record<string | number, unknown>;
        if (how === 'delete') {
          if (Array.isArray(holder)) holder.splice(slot as number, 1);
          else delete target[slot];
        } else if (how === 'replace') target[slot] = value;
        else if (how === 'undefined') target[slot] = undefined;
        else if (how === 'null') target[slot] = null;
        else if (how === 'empty-string') target[slot] = '';
        else if (how === 'float') target[slot] = 1.5;
        // YAML's .inf and .nan.
        else if (how === 'infinity') target[slot] = Number.POSITIVE_INFINITY;
        else if (how === 'nan') target[slot] = Number.NaN;
        else if (how === 'int') target[slot] = 3;
        // YAML's !!timestamp, !!set and !!binary (the yaml library reads them in any version).
        else if (how === 'date') target[slot] = new Date(0);
        else if (how === 'set') target[slot] = new Set(['a']);
        else if (how === 'bytes') target[slot] = new Uint8Array([104, 105]);
        else if (how === 'null-prototype')
          target[slot] = Object.assign(Object.create(null), typeof value === 'object' ? value : { value });
        else if (!Array.isArray(holder)) Object.defineProperty(holder, key, { value, enumerable: true });
        if (expectSameAnswer(kind, copy, `${path} (${how} at ${String(slot)})`)) stillValid++;
      }),
      { numRuns: 3000, seed: 29 },
    );
    // Changes that kept a file valid were answered too (compiled), not only refusals.
    expect(stillValid).toBeGreaterThan(300);
  });
});
