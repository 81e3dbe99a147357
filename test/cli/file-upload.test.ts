import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

describe('restfn run: a file parameter from disk', () => {
  test('@path, a plain path and a file:// url upload the file, its type from the extension and its name', async () => {
    const api = await testServer((_req, res) => json(res, 201, { ok: true }));
    const root = tempSolution({
      'solution.yaml': 'name: t\n',
      'functions/rest-upload-note.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${api.url}/upload\nparameters:\n  Content-Type: { location: header, type: string, value: multipart/form-data }\n  file: { location: body, type: file, required: true }\n  title: { location: body, type: string }\n`,
      'notes/note.txt': 'hello from disk\n',
    });
    const note = join(root, 'notes', 'note.txt');
    for (const given of ['@notes/note.txt', note, pathToFileURL(note).href]) {
      const r = await runCli(['run', 'rest-upload-note', '-p', `file=${given}`, '-p', 'title=Note'], {
        cwd: root,
      });
      expect(r.code, `${given}: ${r.stderr}`).toBe(0);
      const body = api.requests.at(-1)!.body;
      expect(body).toContain('Content-Disposition: form-data; name="file"; filename="note.txt"');
      expect(body).toMatch(/filename="note\.txt"\r\nContent-Type: text\/plain\r\n\r\nhello from disk\n/);
      expect(body).toContain('name="title"\r\n\r\nNote');
    }
    // Base64 is still base64 (and a data URI a data URI).
    const b64 = await runCli(
      ['run', 'rest-upload-note', '-p', `file=${Buffer.from('abc').toString('base64')}`],
      {
        cwd: root,
      },
    );
    expect(b64.code, b64.stderr).toBe(0);
    expect(api.requests.at(-1)!.body).toContain('\r\n\r\nabc\r\n');

    const count = api.requests.length;
    for (const missing of ['@notes/gone.txt', join(root, 'notes', 'gone.txt')]) {
      const r = await runCli(['run', 'rest-upload-note', '-p', `file=${missing}`], { cwd: root });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `FILE_ERROR: parameter 'file' is a file, and ${join(root, 'notes', 'gone.txt')} cannot be read: there is no such file`,
      );
    }
    expect(api.requests.length).toBe(count);
  });
});

describe('an empty string is a value', () => {
  test('sent as "" in a body, query or header; a path parameter refuses it with INVALID_URL_VALUE', async () => {
    const api = await testServer((_req, res) => json(res, 200, {}));
    const root = tempSolution({
      'solution.yaml': 'name: t\n',
      'functions/rest-note.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${api.url}/items/{id}\nparameters:\n  id: { location: path, type: string, required: true }\n  q: { location: query, type: string, required: true }\n  X-Tag: { location: header, type: string, required: true }\n  note: { location: body, type: string, required: true }\n`,
    });
    const sent = await runCli(['run', 'rest-note', '-p', 'id=7', '-p', 'q=', '-p', 'X-Tag=', '-p', 'note='], {
      cwd: root,
    });
    expect(sent.code, sent.stderr).toBe(0);
    const request = api.requests.at(-1)!;
    expect(request.url).toBe('/items/7?q=');
    expect(request.headers['x-tag']).toBe('');
    expect(JSON.parse(request.body)).toEqual({ note: '' });

    const path = await runCli(
      ['run', 'rest-note', '-p', 'id=', '-p', 'q=a', '-p', 'X-Tag=b', '-p', 'note=c'],
      {
        cwd: root,
      },
    );
    expect(path.code).toBe(2);
    expect(path.stderr).toContain(
      `INVALID_URL_VALUE: path parameter 'id' is an empty string, which cannot fill {id}: ${api.url}/items/?q=a; give it a value`,
    );
    expect(api.requests.length).toBe(1);
  });
});
