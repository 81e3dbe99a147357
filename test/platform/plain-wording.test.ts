import { describe, expect, it } from 'vitest';
import { plainSchemaMessage } from '../../src/platform/schema-messages.js';
import { runCli } from '../helpers/cli.js';
import { startPlatformProcess } from '../helpers/platform.js';

describe("the platform API's words for a refused request, and tokens create's", () => {
  it("says the field and how to fix it, never the validator's own wording (through the real API)", async () => {
    const platform = await startPlatformProcess();
    const token = platform.adminToken;
    const short = await platform.api('POST', '/api/v1/users', {
      token,
      body: { name: 'bob', role: 'user', solutions: [], password: 'short' },
    });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({
      code: 'REQUEST_INVALID',
      message: 'password: at least 12 characters',
    });

    const flat = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-orders/execute', {
      token,
      body: { id: 3 },
    });
    expect(flat.status).toBe(400);
    expect(flat.body).toMatchObject({
      code: 'REQUEST_INVALID',
      message: 'unknown field `id`: parameters go inside `parameters: {...}`',
    });

    const role = await platform.api('POST', '/api/v1/users', {
      token,
      body: { name: 'bob', role: 'boss', solutions: [] },
    });
    expect(role.body.message).toBe('role: one of admin, author, user');
    const missing = await platform.api('POST', '/api/v1/users', { token, body: { role: 'user' } });
    expect(missing.body.message).toBe('missing field `name`: add it to the body');
    for (const answer of [short, flat, role, missing])
      expect(answer.body.message).not.toMatch(/must NOT|body\//);

    // tokens create: the token alone on stdout; the id on stderr, said to be an id.
    const made = await runCli(['tokens', 'create', 'admin', '--server', platform.url, '--token', token]);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^rfn_[A-Za-z0-9_-]{43}\n$/);
    expect(made.stderr).toMatch(/\(token id: [0-9a-f-]{36}, not the token\)/);
    expect(made.stderr).not.toContain(made.stdout.trim());
  });

  it('words each kind of finding', () => {
    const body = { properties: { name: {}, role: {} } };
    const say = (keyword: string, instancePath: string, params: Record<string, unknown>) =>
      plainSchemaMessage([{ keyword, instancePath, params, message: 'ajv says' }], 'body', body);
    expect(say('maxLength', '/name', { limit: 64 })).toBe('name: at most 64 characters');
    expect(say('type', '/solutions', { type: 'array' })).toBe('solutions: must be a list ([...])');
    expect(say('additionalProperties', '', { additionalProperty: 'x' })).toBe(
      'unknown field `x`: the fields are name, role',
    );
    expect(say('pattern', '/a~1b', { pattern: '^[a-z]+$' })).toBe('a/b: not in the form it takes (^[a-z]+$)');
    expect(say('const', '/x', {})).toBe('x: ajv says');
    expect(
      plainSchemaMessage([{ keyword: 'type', instancePath: '', params: { type: 'object' } }], 'body'),
    ).toBe('body: must be an object ({...})');
  });
});
