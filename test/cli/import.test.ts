import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { FIXTURES, tempSolution } from '../helpers/temp-solution.js';

const IMPORT = join(FIXTURES, 'import');
const SWAGGER = join(IMPORT, 'petstore-swagger-2.0.json');
const OPENAPI = join(IMPORT, 'petstore-openapi-3.0.yaml');
const OPENAPI_31 = join(IMPORT, 'tracker-openapi-3.1.yaml');
const POSTMAN = join(IMPORT, 'pet-shop.postman_collection.json');
/** Values in the Postman fixture that are secrets: they must never reach a file or the output. */
const POSTMAN_SECRETS = [
  'pk_live_9f8e7d6c5b4a39281706',
  'Sup3r-Secret-Passw0rd',
  'Tr0ub4dor-and-3-more-words',
  'st_8c1d2e3f4a5b6c7d8e9f',
  'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
  'literal-token-in-a-header',
];

function solution(): string {
  return tempSolution({ 'solution.yaml': 'name: imported\n' });
}

function functionFiles(root: string): string[] {
  const dir = join(root, 'functions');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

function functionFile(root: string, name: string): { text: string; data: Record<string, unknown> } {
  const text = readFileSync(join(root, 'functions', `${name}.platform`), 'utf8');
  return { text, data: parse(text) as Record<string, unknown> };
}

/** `restfn validate --format json` of the whole solution. */
async function validate(root: string): Promise<{ files: number; errors: number; warnings: number }> {
  const r = await runCli(['validate', '--format', 'json'], { cwd: root });
  return JSON.parse(r.stdout);
}

describe('restfn import: the Swagger Petstore 2.0', () => {
  test('one valid function file per operation, with parameters, body, security and its origin', async () => {
    const root = solution();
    const r = await runCli(['import', SWAGGER], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Swagger Petstore (Swagger 2.0), 16 operations, 16 selected');
    expect(r.stdout).toMatch(
      /new\s+functions\/rest-get-pet-by-id\.platform\s+getPetById \(GET \/pet\/\{petId\}\)/,
    );
    expect(r.stderr).toContain('restfn: wrote 16 files');
    expect(functionFiles(root)).toHaveLength(16);
    expect(await validate(root)).toMatchObject({ files: 17, errors: 0 });

    const byId = functionFile(root, 'rest-get-pet-by-id');
    expect(byId.data).toMatchObject({
      provider: 'DATA_PROVIDER_REST',
      method: 'GET',
      url: 'https://petstore.swagger.io/v2/pet/{petId}',
      format: 'json',
      parameters: {
        petId: { location: 'path', type: 'int', required: true },
        api_key: { location: 'header', type: 'secret', required: true, value: 'api-key' },
      },
    });
    // The origin, for a later import to compare with.
    expect(byId.text).toMatch(/^# Imported by restfn import/);
    expect(byId.text).toMatch(/^# source: .*petstore-swagger-2\.0\.json$/m);
    expect(byId.text).toContain('# operation: getPetById (GET /pet/{petId})');
    expect(byId.text).toMatch(/^# date: \d{4}-\d{2}-\d{2}$/m);

    // A JSON body: its top-level properties are body parameters, and the inputTransform builds it.
    const addPet = functionFile(root, 'rest-add-pet');
    expect(addPet.data).toMatchObject({
      method: 'POST',
      parameters: {
        name: { location: 'body', type: 'string', required: true },
        photoUrls: { location: 'body', type: 'array', required: true },
        category: { location: 'body', type: 'object', required: false },
        status: { location: 'body', type: 'string', required: false },
        accessToken: {
          location: 'header',
          type: 'petstore-auth.oauth',
          required: true,
          value: 'petstore-auth',
        },
      },
    });
    expect(addPet.data.inputTransform).toContain('"photoUrls": photoUrls');
    // A list body is one parameter.
    expect(functionFile(root, 'rest-create-users-with-list-input').data).toMatchObject({
      parameters: { body: { location: 'body', type: 'array', required: true } },
      inputTransform: 'body',
    });
    // Form data is a url-encoded form; a form with a file is multipart form data.
    expect(functionFile(root, 'rest-update-pet-with-form').data).toMatchObject({
      parameters: {
        'Content-Type': { location: 'header', value: 'application/x-www-form-urlencoded' },
        name: { location: 'body', type: 'string' },
        status: { location: 'body', type: 'string' },
      },
    });
    expect(functionFile(root, 'rest-upload-file').data).toMatchObject({
      parameters: {
        'Content-Type': { location: 'header', value: 'multipart/form-data' },
        additionalMetadata: { location: 'body', type: 'string' },
        file: { location: 'body', type: 'file' },
      },
    });
    // Swagger's `multi` list is sent with the key repeated, as restfn sends arrays in a query.
    expect(functionFile(root, 'rest-find-pets-by-status').data).toMatchObject({
      parameters: { status: { location: 'query', type: 'array', required: true } },
    });

    // The credentials to store, by key and kind: never a value.
    expect(r.stdout).toContain('restfn credentials set api-key --kind secret\n');
    expect(r.stdout).toContain(
      "restfn credentials set petstore-auth --kind oauth --authorize-url https://petstore.swagger.io/oauth/authorize --token-url '<TOKEN_URL>' --client-id '<CLIENT_ID>' --scope write:pets --scope read:pets",
    );
  });
});

describe('restfn import: the OpenAPI 3 Petstore (YAML, a relative server)', () => {
  test('a relative server needs --var baseUrl; with it every file validates', async () => {
    const root = solution();
    const without = await runCli(['import', OPENAPI], { cwd: root });
    expect(without.code).toBe(2);
    expect(without.stderr).toContain('restfn: error IMPORT_VARIABLE_MISSING:');
    expect(without.stderr).toContain('--var baseUrl=https://HOST/api/v3');
    expect(functionFiles(root)).toEqual([]);

    const r = await runCli(['import', OPENAPI, '--var', 'baseUrl=https://petstore3.swagger.io/api/v3'], {
      cwd: root,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Swagger Petstore - OpenAPI 3.0 (OpenAPI 3.0.4), 15 operations, 15 selected');
    expect(functionFiles(root)).toHaveLength(15);
    expect(await validate(root)).toMatchObject({ files: 16, errors: 0 });
    expect(functionFile(root, 'rest-find-pets-by-status').data).toMatchObject({
      url: 'https://petstore3.swagger.io/api/v3/pet/findByStatus',
      parameters: { status: { location: 'query', type: 'string', required: false, value: 'available' } },
    });
    // Of the security alternatives, the first; the others are named in a note.
    const byId = functionFile(root, 'rest-get-pet-by-id');
    expect(Object.keys(byId.data.parameters as object)).toEqual(['petId', 'api_key']);
    expect(byId.text).toContain(
      '# note: security: of 2 alternatives, api_key is used (the simplest to store',
    );
    // A JSON body among other media types is imported; an octet-stream body is the whole body, a file.
    expect(functionFile(root, 'rest-update-pet').data.inputTransform).toContain('"name": name');
    const upload = functionFile(root, 'rest-upload-file').data;
    expect(upload).toMatchObject({
      parameters: {
        'Content-Type': { location: 'header', value: 'application/octet-stream' },
        body: { location: 'body', type: 'file' },
      },
    });
    expect(upload.inputTransform).toBeUndefined();
  });
});

describe('restfn import: OpenAPI 3.1', () => {
  test('server variables, 3.1 types, allOf bodies, renamed body properties, OAuth flows, skipped methods', async () => {
    const root = solution();
    const r = await runCli(['import', OPENAPI_31, '--var', 'region=us', '--prefix', 'tracker'], {
      cwd: root,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/skipped\s+OPTIONS \/projects\/\{projectId\}\/issues: restfn calls only/);
    expect(functionFiles(root)).toEqual([
      'tracker-create-issue.platform',
      'tracker-get-report.platform',
      'tracker-list-issues.platform',
    ]);
    expect(await validate(root)).toMatchObject({ errors: 0 });

    const list = functionFile(root, 'tracker-list-issues');
    expect(list.data).toMatchObject({
      url: 'https://us.tracker.example.com/v2/projects/{projectId}/issues',
      parameters: {
        projectId: { location: 'path', type: 'int', required: true },
        state: { location: 'query', type: 'string', value: 'open' },
        // style form, explode false: one comma-separated value, as the service reads it.
        labels: { location: 'query', type: 'array', style: 'form', explode: false },
        // A default starting with '=' stays a text (written as an expression giving that text).
        formula: { location: 'query', value: '="=state"' },
        'X-Trace': { location: 'header', type: 'boolean', required: true },
        // An http bearer scheme: a static token, sent as `Authorization: Bearer`.
        Authorization: { location: 'header', type: 'secret', value: 'bearer-auth' },
      },
    });
    expect(Object.keys(list.data.parameters as object)).not.toContain('session');
    expect(Object.keys(list.data.parameters as object)).not.toContain('Accept');
    expect(list.text).toContain("# note: cookie parameter 'session' is not imported");

    const create = functionFile(root, 'tracker-create-issue');
    expect(create.data).toMatchObject({
      parameters: {
        'Content-Type': { location: 'header', value: 'application/merge-patch+json' },
        title: { location: 'body', type: 'string', required: true },
        body: { location: 'body', type: 'string', required: false },
        priority: { location: 'body', type: 'int', required: false },
        // The body's projectId would clash with the path parameter: renamed, mapped back.
        body_projectId: { location: 'body', type: 'int' },
      },
    });
    expect(Object.keys(create.data.parameters as object)).not.toContain('id'); // readOnly
    expect(create.data.inputTransform).toContain('"projectId": body_projectId');
    // The service's default of a body property is not sent (an update would overwrite with it).
    expect((create.data.parameters as Record<string, { value?: unknown }>).priority!.value).toBeUndefined();

    expect(functionFile(root, 'tracker-get-report').data).toMatchObject({
      format: 'xml',
      parameters: {
        reportId: { location: 'path', required: true },
        accessToken: { type: 'client-auth.oauth' },
      },
    });
    expect(r.stdout).toContain(
      'restfn credentials set client-auth --kind oauth --token-url https://auth.tracker.example.com/oauth/token',
    );
    expect(r.stdout).toContain('--grant client_credentials --scope reports:read');
  });

  test('server variables take their defaults; an unused --var is a warning', async () => {
    const root = solution();
    const r = await runCli(['import', OPENAPI_31, '--var', 'regoin=us', '--dry-run'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('restfn: warning: --var regoin is not used by');
    const real = await runCli(['import', OPENAPI_31], { cwd: root });
    expect(real.code, real.stderr).toBe(0);
    expect(functionFile(root, 'rest-list-issues').data.url).toBe(
      'https://eu.tracker.example.com/v2/projects/{projectId}/issues',
    );
  });
});

describe('restfn import: a Postman collection v2.1', () => {
  test('folders, {{baseUrl}}, path variables, auth of the collection and of folders; no secret copied', async () => {
    const root = solution();
    const r = await runCli(['import', POSTMAN, '--prefix', 'shop'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Pet Shop (Postman Collection v2.1.0), 11 operations, 11 selected');
    expect(functionFiles(root)).toHaveLength(11);
    expect(await validate(root)).toMatchObject({ files: 12, errors: 0 });

    expect(functionFile(root, 'shop-list-pets').data).toMatchObject({
      method: 'GET',
      url: 'https://petshop.example.com/api/v1/pets',
      parameters: {
        limit: { location: 'query', type: 'string', required: false, value: '20' },
        status: { location: 'query', value: 'available' },
        // The collection's API key auth: a secret header under the name it has there.
        'X-API-Key': { location: 'header', type: 'secret', required: true, value: 'pet-shop-api-key' },
      },
    });
    // Disabled query parameters are left out.
    expect(Object.keys(functionFile(root, 'shop-list-pets').data.parameters as object)).not.toContain(
      'debug',
    );
    expect(functionFile(root, 'shop-get-pet').data).toMatchObject({
      url: 'https://petshop.example.com/api/v1/pets/{petId}',
      parameters: { petId: { location: 'path', required: true, value: '1' } },
    });
    // A path variable without a value ({{orderId}}) is a required path parameter.
    expect(functionFile(root, 'shop-get-order').data).toMatchObject({
      url: 'https://petshop.example.com/api/v1/orders/{orderId}',
      parameters: {
        orderId: { location: 'path', required: true },
        // The Orders folder's bearer token.
        Authorization: { location: 'header', type: 'secret', value: 'orders-bearer' },
      },
    });
    expect(functionFile(root, 'shop-reset-store').data).toMatchObject({
      parameters: { basicAuth: { location: 'header', type: 'secret', value: 'admin-basic' } },
    });
    // `noauth` on the request: no credential.
    expect(functionFile(root, 'shop-health').data.parameters).toBeUndefined();
    // The raw JSON body: its properties with their values as defaults; {{petName}} has none.
    const update = functionFile(root, 'shop-update-pet');
    expect(update.data).toMatchObject({
      method: 'PUT',
      parameters: {
        notify: { location: 'query', value: 'true' },
        'X-Request-Source': { location: 'header', value: 'restfn' },
        name: { location: 'body', type: 'string', required: true },
        tag: { location: 'body', type: 'string', required: false, value: 'dog' },
      },
    });
    expect(Object.keys(update.data.parameters as object)).not.toContain('Content-Type');
    expect(functionFile(root, 'shop-create-pet').data).toMatchObject({
      parameters: {
        age: { location: 'body', type: 'number', value: 3 },
        vaccinated: { location: 'body', type: 'boolean', value: true },
      },
    });
    // Form data is multipart form data, a file field a file.
    expect(functionFile(root, 'shop-upload-photo').data).toMatchObject({
      parameters: {
        'Content-Type': { location: 'header', value: 'multipart/form-data' },
        file: { location: 'body', type: 'file' },
      },
    });

    // A body field named like a secret is the caller's value (only an authentication makes a
    // credential): its value is not copied.
    const logIn = functionFile(root, 'shop-log-in');
    expect(logIn.data).toMatchObject({
      parameters: {
        username: { location: 'body', value: 'ada' },
        password: { location: 'body', type: 'string', required: false },
      },
      inputTransform: '{\n  "username": username,\n  "password": password\n}',
    });
    expect((logIn.data.parameters as Record<string, object>).password).not.toHaveProperty('value');
    const profile = functionFile(root, 'shop-get-profile');
    expect(profile.data).toMatchObject({
      parameters: {
        'X-Session-Token': { location: 'header', type: 'secret', value: 'pet-shop-x-session-token' },
        // A variable whose value looks like a secret is not copied: the value is the caller's.
        'X-Client': { location: 'header', required: true },
      },
    });
    // A hand-written Authorization header is a credential parameter of its scheme's kind.
    expect(profile.data).toMatchObject({
      parameters: { Authorization: { location: 'header', type: 'secret', value: 'pet-shop-bearer' } },
    });
    expect(profile.text).toContain(
      "# note: header 'Authorization' is a bearer credential parameter (key pet-shop-bearer)",
    );

    expect(r.stdout).toContain('restfn credentials set pet-shop-api-key --kind secret\n');
    expect(r.stdout).toContain('restfn credentials set pet-shop-bearer --kind bearer\n');
    expect(r.stdout).toContain("restfn credentials set admin-basic --kind basic --username '<USERNAME>'");
    expect(r.stdout).toContain('restfn credentials set orders-bearer --kind bearer\n');
    const written = functionFiles(root).map((f) => readFileSync(join(root, 'functions', f), 'utf8'));
    for (const secret of POSTMAN_SECRETS) {
      expect(r.stdout + r.stderr).not.toContain(secret);
      for (const text of written) expect(text).not.toContain(secret);
    }
  });

  test('--var replaces {{baseUrl}}; a variable the address needs and nobody gives is an error', async () => {
    const root = solution();
    const r = await runCli(
      ['import', POSTMAN, '--var', 'baseUrl=http://127.0.0.1:9/v9', '--only', 'Health'],
      {
        cwd: root,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(functionFile(root, 'rest-health').data.url).toBe('http://127.0.0.1:9/v9/health');

    const collection = JSON.parse(readFileSync(POSTMAN, 'utf8'));
    collection.variable = collection.variable.filter((v: { key: string }) => v.key !== 'baseUrl');
    const copy = join(root, 'no-base-url.postman_collection.json');
    writeFileSync(copy, JSON.stringify(collection));
    const missing = await runCli(['import', copy, '--force'], { cwd: root });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('restfn: error IMPORT_VARIABLE_MISSING:');
    expect(missing.stderr).toContain('pass --var baseUrl=https://api.example.com');
  });
});

describe('restfn import: plan, dry run, re-import', () => {
  test('--dry-run prints the plan and writes nothing', async () => {
    const root = solution();
    const r = await runCli(['import', SWAGGER, '--dry-run'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/new\s+functions\/rest-add-pet\.platform\s+addPet \(POST \/pet\)/);
    expect(r.stderr).toContain('restfn: dry run: nothing written');
    expect(r.stdout).toContain('restfn credentials set api-key --kind secret');
    expect(existsSync(join(root, 'functions'))).toBe(false);
  });

  test('a re-import says unchanged, changed (refused without --force), conflict, and gone', async () => {
    const root = solution();
    expect((await runCli(['import', SWAGGER], { cwd: root })).code).toBe(0);
    const path = join(root, 'functions', 'rest-get-pet-by-id.platform');
    const modified = statSync(path).mtimeMs;

    // The same description again: every file unchanged, none rewritten.
    const again = await runCli(['import', SWAGGER], { cwd: root });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/unchanged\s+functions\/rest-get-pet-by-id\.platform/);
    expect(again.stderr).toContain('restfn: wrote 0 files; 16 unchanged, not rewritten');
    expect(statSync(path).mtimeMs).toBe(modified);

    // A file edited since it was imported is changed: the import would undo the edit.
    writeFileSync(path, readFileSync(path, 'utf8').replace('type: int', 'type: string'));
    const edited = await runCli(['import', SWAGGER, '--dry-run'], { cwd: root });
    expect(edited.stdout).toMatch(
      /changed\s+functions\/rest-get-pet-by-id\.platform\s+getPetById \(GET \/pet\/\{petId\}\): parameters \(~petId\) \(--force overwrites\)/,
    );

    // A description that changed: a new operation, one gone, one changed.
    const description = JSON.parse(readFileSync(SWAGGER, 'utf8'));
    description.paths['/store/inventory'].get.operationId = 'getStock';
    description.paths['/user/login'].get.parameters[0].required = false;
    const copy = join(root, 'petstore.json');
    writeFileSync(copy, JSON.stringify(description));
    // The same description moved (its copy elsewhere): recognised by its title and operations, so
    // its files are this import's (rewritten for the new path, without --force), not conflicts.
    const other = await runCli(['import', copy, '--dry-run'], { cwd: root });
    expect(other.stdout).toMatch(/moved\s+functions\/rest-add-pet\.platform\s+addPet .*: source \(was /);
    expect(other.stdout).toMatch(/changed\s+functions\/rest-get-pet-by-id\.platform/);
    expect(other.stdout).not.toMatch(/conflict/);

    // The same file changed: write the copy where the first import read from.
    const moved = tempSolution({
      'solution.yaml': 'name: moved\n',
      'api.json': readFileSync(SWAGGER, 'utf8'),
    });
    expect((await runCli(['import', 'api.json'], { cwd: moved })).code).toBe(0);
    writeFileSync(join(moved, 'api.json'), JSON.stringify(description));
    const handWritten = join(moved, 'functions', 'rest-delete-order.platform');
    writeFileSync(handWritten, 'provider: DATA_PROVIDER_REST\nmethod: DELETE\nurl: https://example.com/x\n');
    const plan = await runCli(['import', 'api.json', '--dry-run'], { cwd: moved });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/new\s+functions\/rest-get-stock\.platform\s+getStock/);
    expect(plan.stdout).toMatch(
      /changed\s+functions\/rest-login-user\.platform\s+loginUser \(GET \/user\/login\): parameters \(~username\) \(--force overwrites\)/,
    );
    expect(plan.stdout).toMatch(/conflict\s+functions\/rest-delete-order\.platform\s+deleteOrder .*: url/);
    expect(plan.stdout).toMatch(
      /gone\s+functions\/rest-get-inventory\.platform\s+getInventory \(GET \/store\/inventory\): no longer in the description/,
    );
    expect(plan.stderr).toContain('restfn: dry run: nothing written; 2 would be refused without --force');
    expect(existsSync(join(moved, 'functions', 'rest-get-stock.platform'))).toBe(false);

    // Without --force nothing is written, not even the new file.
    const refused = await runCli(['import', 'api.json'], { cwd: moved });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('restfn: error FILE_EXISTS:');
    expect(refused.stderr).toContain('functions/rest-login-user.platform (changed since it was imported)');
    expect(refused.stderr).toContain(
      'functions/rest-delete-order.platform (exists and was not imported from this file)',
    );
    expect(existsSync(join(moved, 'functions', 'rest-get-stock.platform'))).toBe(false);
    expect(readFileSync(handWritten, 'utf8')).toContain('https://example.com/x');

    const forced = await runCli(['import', 'api.json', '--force'], { cwd: moved });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('restfn: wrote 3 files; 13 unchanged, not rewritten');
    expect(functionFile(moved, 'rest-login-user').data).toMatchObject({
      parameters: { username: { required: false } },
    });
    expect(readFileSync(handWritten, 'utf8')).toContain('# operation: deleteOrder');
    // A gone operation's file is kept.
    expect(existsSync(join(moved, 'functions', 'rest-get-inventory.platform'))).toBe(true);
    expect(await validate(moved)).toMatchObject({ errors: 0 });
  });

  test('--only selects by tag, operationId or function name; a name matching nothing is an error', async () => {
    const root = solution();
    const r = await runCli(['import', SWAGGER, '--only', 'store', 'getUserByName', 'rest-login-user'], {
      cwd: root,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('16 operations, 6 selected');
    expect(functionFiles(root)).toEqual([
      'rest-delete-order.platform',
      'rest-get-inventory.platform',
      'rest-get-order-by-id.platform',
      'rest-get-user-by-name.platform',
      'rest-login-user.platform',
      'rest-place-order.platform',
    ]);
    // Postman: folders and request names.
    const shop = solution();
    const p = await runCli(['import', POSTMAN, '--only', 'Orders,Health'], { cwd: shop });
    expect(p.code, p.stderr).toBe(0);
    expect(functionFiles(shop)).toEqual([
      'rest-get-order.platform',
      'rest-health.platform',
      'rest-place-order.platform',
    ]);

    const wrong = await runCli(['import', SWAGGER, '--only', 'usr'], { cwd: solution() });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      "restfn: error IMPORT_ONLY_UNMATCHED: --only 'usr' (did you mean 'user'?)",
    );
  });

  test('--solution and a file:// URL; the credentials commands name the solution', async () => {
    const root = solution();
    const r = await runCli([
      'import',
      pathToFileURL(SWAGGER).href,
      '--solution',
      root,
      '--only',
      'getPetById',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(functionFiles(root)).toEqual(['rest-get-pet-by-id.platform']);
    expect(r.stdout).toContain(`restfn credentials set api-key --kind secret --solution ${root}`);
  });
});

describe('restfn import: text from the description', () => {
  test('cannot add keys to a file or drive the terminal; validation warnings are shown', async () => {
    const root = tempSolution({
      'solution.yaml': 'name: t\n',
      'api.yaml': [
        'openapi: 3.0.3',
        'info: {title: "Tricky\\u001b[2J", version: \'1\'}',
        "servers: [{url: 'https://api.example.com'}]",
        'paths:',
        '  /search:',
        '    get:',
        '      operationId: "search\\nurl: https://evil.example.com"',
        '      summary: "Find\\nmethod: DELETE"',
        '      parameters:',
        '        - name: q',
        '          in: query',
        '          description: "The words\\ninputTransform: evil"',
        '          schema: {type: string}',
        '      requestBody:',
        '        content:',
        '          application/json:',
        '            schema: {type: object, properties: {filter: {type: string}}}',
        "      responses: {'200': {description: ok}}",
        '',
      ].join('\n'),
    });
    const r = await runCli(['import', 'api.yaml'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain('\u001b');
    const [file] = functionFiles(root);
    expect(file).toBe('rest-search-url-https-evil-example-com.platform');
    const { data } = functionFile(root, file!.replace('.platform', ''));
    expect(data).toMatchObject({ method: 'GET', url: 'https://api.example.com/search' });
    expect(Object.keys(data)).toEqual(['provider', 'method', 'url', 'format', 'parameters']);
    // A body on a GET is left out (restfn sends none), and the file says so.
    expect(functionFile(root, file!.replace('.platform', '')).text).toContain(
      '# note: the request body is not imported: a GET request carries none',
    );
  });
});

describe('restfn import: errors say what failed, where, and how to fix it', () => {
  const cases: Array<{ title: string; file: string; code: string; exit: number; says: string }> = [
    {
      title: 'a web address',
      file: 'https://petstore.swagger.io/v2/swagger.json',
      code: 'IMPORT_NOT_LOCAL',
      exit: 2,
      says: 'download it first',
    },
    {
      title: 'a file:// URL of another host',
      file: 'file://server/share/api.json',
      code: 'IMPORT_NOT_LOCAL',
      exit: 2,
      says: 'not a file on this machine',
    },
    {
      title: 'a missing file',
      file: join(IMPORT, 'missing.json'),
      code: 'IMPORT_UNREADABLE',
      exit: 2,
      says: 'no such file; check the path',
    },
    { title: 'a folder', file: IMPORT, code: 'IMPORT_UNREADABLE', exit: 2, says: 'it is a folder' },
    {
      title: 'broken YAML',
      file: 'invalid/broken-yaml.yaml',
      code: 'IMPORT_UNREADABLE',
      exit: 2,
      says: 'broken-yaml.yaml:4:1 is neither JSON nor valid YAML',
    },
    {
      title: 'not a description',
      file: 'invalid/not-a-description.json',
      code: 'IMPORT_FORMAT',
      exit: 2,
      says: "no 'openapi', 'swagger' or 'info.schema'",
    },
    {
      title: 'an OpenAPI version not read',
      file: 'invalid/openapi-3.2-unsupported.yaml',
      code: 'IMPORT_FORMAT',
      exit: 2,
      says: 'is OpenAPI 3.2.0',
    },
    {
      title: 'a Postman collection v1',
      file: 'invalid/postman-v1-unsupported.json',
      code: 'IMPORT_FORMAT',
      exit: 2,
      says: 'export it again as Collection v2.1',
    },
    {
      title: 'a Postman environment',
      file: 'invalid/postman-environment.json',
      code: 'IMPORT_FORMAT',
      exit: 2,
      says: 'is a Postman environment',
    },
    {
      title: 'a $ref to nothing',
      file: 'invalid/ref-unresolved.yaml',
      code: 'IMPORT_REF_UNRESOLVED',
      exit: 2,
      says: "the $ref '#/components/schemas/Item' at #/paths/~1items/get",
    },
    {
      title: 'a $ref to a missing file',
      file: 'invalid/ref-missing-file.yaml',
      code: 'IMPORT_REF_UNRESOLVED',
      exit: 2,
      says: 'parameters.yaml, which cannot be read (ENOENT)',
    },
    {
      title: 'a $ref to the web (never fetched)',
      file: 'invalid/ref-remote.yaml',
      code: 'IMPORT_REF_UNRESOLVED',
      exit: 2,
      says: 'is a web address',
    },
    {
      title: 'a server variable without a default',
      file: 'invalid/server-variable-without-default.yaml',
      code: 'IMPORT_VARIABLE_MISSING',
      exit: 2,
      says: 'pass --var tenant=VALUE',
    },
    {
      title: 'nothing restfn can call',
      file: 'invalid/no-operations.yaml',
      code: 'IMPORT_NO_OPERATIONS',
      exit: 2,
      says: 'has no operation restfn can import',
    },
    {
      title: 'an operation giving an invalid file',
      file: 'invalid/server-not-http-invalid-function.yaml',
      code: 'IMPORT_INVALID_FUNCTION',
      exit: 3,
      says: "listReports (GET /reports) would give an invalid function 'rest-list-reports'",
    },
  ];
  test.each(cases)('$title: $code', async ({ file, code, exit, says }) => {
    const root = solution();
    const path = /^[a-z]+:/.test(file) || file.startsWith('/') ? file : join(IMPORT, file);
    const r = await runCli(['import', path], { cwd: root });
    expect(r.code).toBe(exit);
    expect(r.stderr).toContain(`restfn: error ${code}: `);
    expect(r.stderr).toContain(says);
    expect(functionFiles(root)).toEqual([]);
  });

  test('an invalid file is reported with its findings before anything is written', async () => {
    const r = await runCli(['import', join(IMPORT, 'invalid', 'server-not-http-invalid-function.yaml')], {
      cwd: solution(),
    });
    expect(r.stderr).toMatch(/functions\/rest-list-reports\.platform:\d+:\d+: error URL_INVALID: /);
  });

  test('an operation that would give an invalid function is left out, said with its findings; the others are written', async () => {
    const root = solution();
    writeFileSync(
      join(root, 'api.yaml'),
      `openapi: 3.0.3
info: {title: One of two, version: '1'}
servers: [{url: 'https://api.example.com'}]
paths:
  /items:
    get:
      operationId: listItems
      responses: {'200': {description: ok}}
  /reports:
    get:
      operationId: listReports
      servers: [{url: 'ftp://files.example.com/pub'}]
      responses: {'200': {description: ok}}
`,
    );
    const r = await runCli(['import', 'api.yaml'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/functions\/rest-list-reports\.platform:\d+:\d+: error URL_INVALID: /);
    expect(r.stderr).toContain(
      "restfn: warning: listReports (GET /reports) is left out: it would give an invalid function 'rest-list-reports'",
    );
    expect(functionFiles(root)).toEqual(['rest-list-items.platform']);
    expect(await validate(root)).toMatchObject({ errors: 0 });
  });

  test('wrong usage: a --var without =, a --prefix that cannot start a name', async () => {
    const badVar = await runCli(['import', SWAGGER, '--var', 'baseUrl'], { cwd: solution() });
    expect(badVar.code).toBe(2);
    expect(badVar.stderr).toContain('restfn: error USAGE: --var takes name=value');
    const badPrefix = await runCli(['import', SWAGGER, '--prefix', 'Rest_'], { cwd: solution() });
    expect(badPrefix.code).toBe(2);
    expect(badPrefix.stderr).toContain('restfn: error INVALID_NAME: --prefix');
  });
});

describe('restfn import: an imported function runs', () => {
  const ENV = { RESTFN_CREDENTIALS_KEY: Buffer.alloc(32, 17).toString('base64') };

  test('Postman: method, path, query, headers (with the API key) and body reach the service', async () => {
    const server = await testServer((_, res) => json(res, 200, { id: 7, name: 'Rex' }));
    const root = solution();
    const imported = await runCli(
      ['import', POSTMAN, '--var', `baseUrl=${server.url}/api/v1`, '--only', 'Update pet'],
      {
        cwd: root,
      },
    );
    expect(imported.code, imported.stderr).toBe(0);
    const set = await runCli(['credentials', 'set', 'pet-shop-api-key', '--kind', 'secret'], {
      cwd: root,
      input: 'key-for-the-loopback',
      env: ENV,
    });
    expect(set.code, set.stderr).toBe(0);
    const r = await runCli(['run', 'rest-update-pet', '-p', 'petId=7', '-p', 'name=Rex'], {
      cwd: root,
      env: ENV,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 7, name: 'Rex' });
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.method).toBe('PUT');
    expect(request.url).toBe('/api/v1/pets/7?notify=true');
    expect(request.headers['x-api-key']).toBe('key-for-the-loopback');
    expect(request.headers['x-request-source']).toBe('restfn');
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(request.body)).toEqual({ name: 'Rex', tag: 'dog' });
  });

  test('OpenAPI: a form body, a multipart upload with a file, a raw image and deepObject query parameters reach the service as described', async () => {
    const server = await testServer((_, res) => json(res, 200, { ok: true }));
    const root = solution();
    const form = (type: string, properties: string) =>
      `      requestBody:\n        required: true\n        content:\n          ${type}:\n            schema:\n              type: object\n              properties:\n${properties}`;
    writeFileSync(
      join(root, 'api.yaml'),
      `openapi: 3.0.3
info: {title: Bodies, version: '1'}
servers: [{url: '${server.url}/v1'}]
paths:
  /customers:
    post:
      operationId: createCustomer
      parameters:
        - {name: expand, in: query, style: deepObject, explode: true, schema: {type: array, items: {type: string}}}
${form('application/x-www-form-urlencoded', '                email: {type: string}\n                metadata: {type: object}\n                tags: {type: array, items: {type: string}}\n')}
      responses: {'200': {description: ok}}
  /files:
    post:
      operationId: uploadFile
${form('multipart/form-data', '                purpose: {type: string}\n                file: {type: string, format: binary}\n')}
      responses: {'200': {description: ok}}
  /avatar:
    put:
      operationId: putAvatar
      requestBody:
        content:
          image/png:
            schema: {type: string, format: binary}
      responses: {'200': {description: ok}}
`,
    );
    const imported = await runCli(['import', 'api.yaml'], { cwd: root });
    expect(imported.code, imported.stderr).toBe(0);
    expect(await validate(root)).toMatchObject({ errors: 0 });
    const png = Buffer.from('\x89PNG\r\n\x1a\nnot-really', 'latin1');
    mkdirSync(join(root, '.restfn', 'files'), { recursive: true });
    writeFileSync(join(root, '.restfn', 'files', 'me.png'), png);
    const uri = pathToFileURL(join(root, '.restfn', 'files', 'me.png')).href;
    const run = (...args: string[]) => runCli(['run', ...args], { cwd: root });
    expect(
      (
        await run(
          'rest-create-customer',
          '-p',
          'expand=["invoice"]',
          '-p',
          'email=a@b.c',
          '-p',
          'metadata={"plan":"pro"}',
          '-p',
          'tags=["a","b"]',
        )
      ).code,
    ).toBe(0);
    expect((await run('rest-upload-file', '-p', 'purpose=avatar', '-p', `file=${uri}`)).code).toBe(0);
    expect((await run('rest-put-avatar', '-p', `body=${uri}`)).code).toBe(0);
    const [customer, upload, avatar] = server.requests;
    expect(customer!.url).toBe('/v1/customers?expand%5B%5D=invoice');
    expect(customer!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    // No `encoding` in the description: OpenAPI's default form style, a list repeats its key.
    expect(customer!.body).toBe('email=a%40b.c&metadata%5Bplan%5D=pro&tags=a&tags=b');
    expect(upload!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const parts = await new Response(upload!.bytes, {
      headers: { 'content-type': String(upload!.headers['content-type']) },
    }).formData();
    expect(parts.get('purpose')).toBe('avatar');
    expect((parts.get('file') as File).name).toBe('me.png');
    expect(avatar!.headers['content-type']).toBe('image/png');
    expect(avatar!.bytes.equals(png)).toBe(true);
  });

  test('OpenAPI: path parameter, JSON body, and the API key of the security scheme', async () => {
    const server = await testServer((_, res) => json(res, 200, { id: 10 }));
    const root = solution();
    writeFileSync(join(root, 'petstore.yaml'), readFileSync(OPENAPI, 'utf8'));
    const imported = await runCli(
      ['import', 'petstore.yaml', '--var', `baseUrl=${server.url}/api/v3`, '--only', 'getPetById,placeOrder'],
      { cwd: root },
    );
    expect(imported.code, imported.stderr).toBe(0);
    await runCli(['credentials', 'set', 'api-key', '--kind', 'secret'], {
      cwd: root,
      input: 'special-key',
      env: ENV,
    });
    const get = await runCli(['run', 'rest-get-pet-by-id', '-p', 'petId=10'], { cwd: root, env: ENV });
    expect(get.code, get.stderr).toBe(0);
    const order = await runCli(
      [
        'run',
        'rest-place-order',
        '--params',
        '{"petId": 10, "quantity": 2, "status": "placed", "complete": false}',
      ],
      { cwd: root, env: ENV },
    );
    expect(order.code, order.stderr).toBe(0);
    const [first, second] = server.requests;
    expect(first).toMatchObject({ method: 'GET', url: '/api/v3/pet/10' });
    expect(first!.headers.api_key).toBe('special-key');
    expect(second).toMatchObject({ method: 'POST', url: '/api/v3/store/order' });
    expect(JSON.parse(second!.body)).toEqual({ petId: 10, quantity: 2, status: 'placed', complete: false });
  });
});

describe('import into a folder that is no solution yet', () => {
  test('writes a solution.yaml named after the folder, so the functions validate as a solution', async () => {
    const parent = tempSolution({});
    const root = join(parent, 'Pet-Store');
    mkdirSync(root);
    const r = await runCli(['import', SWAGGER], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('restfn: wrote solution.yaml (this folder had none)');
    expect(readFileSync(join(root, 'solution.yaml'), 'utf8')).toBe('name: pet-store\ntitle: pet-store\n');
    expect((await validate(root)).errors).toBe(0);
    // A second import leaves it as it is.
    const again = await runCli(['import', SWAGGER], { cwd: root });
    expect(again.stdout).not.toContain('solution.yaml');
  });

  test('--solution NEWDIR makes the folder (a dry run or a refused import leaves none)', async () => {
    const parent = tempSolution({});
    const dry = await runCli(['import', SWAGGER, '--solution', 'shop/api', '--dry-run'], { cwd: parent });
    expect(dry.code, dry.stderr).toBe(0);
    expect(existsSync(join(parent, 'shop'))).toBe(false);
    const r = await runCli(['import', SWAGGER, '--solution', 'shop/api'], { cwd: parent });
    expect(r.code, r.stderr).toBe(0);
    const root = join(parent, 'shop', 'api');
    expect(existsSync(join(root, 'solution.yaml'))).toBe(true);
    expect(functionFiles(root).length).toBeGreaterThan(0);
    expect((await validate(root)).errors).toBe(0);
  });

  test('a body field the schema lists as required is imported as required, though the body is not marked so', async () => {
    const root = solution();
    writeFileSync(
      join(root, 'api.yaml'),
      [
        'openapi: 3.0.3',
        'info: { title: t, version: "1" }',
        'servers: [{ url: "http://127.0.0.1:9" }]',
        'paths:',
        '  /notes:',
        '    post:',
        '      operationId: createNote',
        '      requestBody:',
        '        content:',
        '          application/json:',
        '            schema:',
        '              type: object',
        '              required: [title]',
        '              properties:',
        '                title: { type: string }',
        '                body: { type: string }',
        '      responses: { "201": { description: made } }',
        '',
      ].join('\n'),
    );
    const r = await runCli(['import', 'api.yaml'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    const [name] = functionFiles(root);
    const { data } = functionFile(root, name!.replace('.platform', ''));
    expect(data.parameters).toMatchObject({
      title: { location: 'body', required: true },
      body: { location: 'body', required: false },
    });
  });
});

describe('restfn import: never the network', () => {
  test('a $ref to a web address is refused before any DNS lookup', async () => {
    const root = solution();
    writeFileSync(
      join(root, 'api.yaml'),
      readFileSync(join(IMPORT, 'invalid', 'ref-remote.yaml'), 'utf8').replace(
        'http://127.0.0.1:9/parameters.yaml',
        'https://restfn-dns-probe.example.com/parameters.yaml',
      ),
    );
    // Every DNS lookup the process makes is written to stderr.
    const hook = join(root, 'dns-hook.cjs');
    writeFileSync(
      hook,
      "const dns = require('node:dns');\nfor (const api of [dns, dns.promises]) { const lookup = api.lookup; api.lookup = function (host, ...rest) { process.stderr.write('DNS LOOKUP ' + host + '\\n'); return lookup.call(this, host, ...rest); }; }\n",
    );
    const r = await runCli(['import', 'api.yaml', '--dry-run'], {
      cwd: root,
      env: { NODE_OPTIONS: `--require ${hook}` },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "the $ref 'https://restfn-dns-probe.example.com/parameters.yaml' is a web address",
    );
    expect(r.stderr).not.toContain('DNS LOOKUP');
  });
});

describe('restfn import: every callable operation, named', () => {
  test('a name two operations would share is resolved by a rule, listed in the plan, and stays when the description grows', async () => {
    const root = solution();
    const fixture = join(IMPORT, 'name-collision.yaml');
    const first = await runCli(['import', fixture], { cwd: root });
    expect(first.code, first.stderr).toBe(0);
    const names = functionFiles(root);
    expect(names).toHaveLength(2);
    expect(names[0]).toMatch(/^rest-get-items-[0-9a-f]{6}\.platform$/);
    expect(names[1]).toBe('rest-get-v2-items.platform');
    expect(first.stdout).toMatch(
      /renamed\s+rest-get-v2-items: 'rest-get-items' is also getItems \(GET \/items\): named by its method and path/,
    );
    expect(first.stdout).toMatch(
      /renamed\s+rest-get-items-[0-9a-f]{6}: 'rest-get-items' is also get_items .*: named by a hash of its route/,
    );
    expect(await validate(root)).toMatchObject({ errors: 0 });
    // The description gains an operation whose own name is one already written: the written ones stay.
    const grown = readFileSync(fixture, 'utf8').replace(
      'paths:\n',
      "paths:\n  /v3/items:\n    get:\n      operationId: getV2Items\n      responses:\n        '200': {description: ok}\n",
    );
    writeFileSync(join(root, 'api.yaml'), grown);
    const again = await runCli(['import', 'api.yaml'], { cwd: root });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/moved\s+functions\/rest-get-v2-items\.platform\s+get_items/);
    expect(again.stdout).toMatch(/new\s+functions\/rest-get-v3-items\.platform\s+getV2Items/);
    expect(again.stdout).toMatch(/renamed\s+rest-get-v3-items: 'rest-get-v2-items' is another operation's/);
    expect(functionFiles(root)).toHaveLength(3);
  });

  test('a scheme-relative server (//host/path) is the host over https; a relative one names --var baseUrl', async () => {
    const root = solution();
    const api = (server: string) =>
      `openapi: 3.0.3\ninfo: {title: Relative, version: '1'}\nservers: [{url: '${server}'}]\npaths:\n  /items:\n    get:\n      operationId: listItems\n      responses: {'200': {description: ok}}\n`;
    writeFileSync(join(root, 'scheme-relative.yaml'), api('//api.example.com/v2'));
    expect((await runCli(['import', 'scheme-relative.yaml'], { cwd: root })).code).toBe(0);
    expect(functionFile(root, 'rest-list-items').data.url).toBe('https://api.example.com/v2/items');
    writeFileSync(join(root, 'relative.yaml'), api('/v2'));
    const relative = await runCli(['import', 'relative.yaml', '--dry-run'], { cwd: root });
    expect(relative.code).toBe(2);
    expect(relative.stderr).toContain('--var baseUrl=https://HOST/v2');
  });

  test('a selection that leaves nothing, and a --from no file records, are errors', async () => {
    const root = solution();
    const none = await runCli(['import', SWAGGER, '--only', 'pet', '--exclude', 'pet'], { cwd: root });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('IMPORT_ONLY_UNMATCHED: --only and --exclude leave none');
    const from = await runCli(['import', SWAGGER, '--from', 'nowhere.json'], { cwd: root });
    expect(from.code).toBe(2);
    expect(from.stderr).toContain('--from nowhere.json: no function of this solution was imported from it');
  });

  test('of several security alternatives, the simplest to store is used (Stripe: bearer over basic)', async () => {
    const root = solution();
    writeFileSync(
      join(root, 'api.yaml'),
      `openapi: 3.0.3
info: {title: Keys, version: '1'}
servers: [{url: 'https://api.example.com'}]
security: [{basicAuth: []}, {bearerAuth: []}]
components:
  securitySchemes:
    basicAuth: {type: http, scheme: basic}
    bearerAuth: {type: http, scheme: bearer}
paths:
  /charges:
    get:
      operationId: listCharges
      responses: {'200': {description: ok}}
`,
    );
    const r = await runCli(['import', 'api.yaml'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(functionFile(root, 'rest-list-charges').data).toMatchObject({
      parameters: { Authorization: { location: 'header', type: 'secret', value: 'bearer-auth' } },
    });
    expect(r.stdout).toContain('restfn credentials set bearer-auth --kind bearer');
  });

  test('names within 50 characters (a hash when cut), accents dropped; Postman v2.0 with its bearer auth; every missing variable in one run; --vars; --exclude', async () => {
    const root = solution();
    const collection = join(IMPORT, 'shop-v2.0.postman_collection.json');
    const missing = await runCli(['import', collection], { cwd: root });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('IMPORT_VARIABLE_MISSING');
    expect(missing.stderr).toContain('--var baseUrl=https://api.example.com');
    expect(missing.stderr).toContain('--var reportsUrl=VALUE');
    const env = join(root, 'shop.postman_environment.json');
    writeFileSync(
      env,
      JSON.stringify({
        name: 'Shop',
        _postman_variable_scope: 'environment',
        values: [
          { key: 'baseUrl', value: 'https://shop.example.com/api', enabled: true },
          { key: 'reportsUrl', value: 'https://reports.example.com', enabled: true },
        ],
      }),
    );
    const imported = await runCli(['import', collection, '--vars', env, '--exclude', 'Customers'], {
      cwd: root,
    });
    expect(imported.code, imported.stderr).toBe(0);
    // Names come from the whole description, whatever is left out: "List" is in two folders.
    expect(functionFiles(root)).toEqual(['rest-creer-une-commande.platform', 'rest-orders-list.platform']);
    const list = functionFile(root, 'rest-orders-list').data;
    expect(list).toMatchObject({
      url: 'https://shop.example.com/api/orders',
      parameters: { Authorization: { type: 'secret' } },
    });
    expect(imported.stdout).toContain('restfn credentials set shop-exported-as-v2-0-bearer --kind bearer');
    expect(readFileSync(join(root, 'functions', 'rest-orders-list.platform'), 'utf8')).not.toContain(
      'shopToken',
    );

    const all = await runCli(['import', collection, '--vars', env], { cwd: root });
    expect(all.code, all.stderr).toBe(0);
    const names = functionFiles(root).map((f) => f.replace(/\.platform$/, ''));
    expect(names).toContain('rest-customers-list');
    const long = names.find((n) => n.startsWith('rest-export-every'))!;
    expect(long.length).toBeLessThanOrEqual(50);
    expect(long).toMatch(/^rest-export-every-customer-with-their(-[a-z]+)*-[0-9a-f]{6}$/);
    expect(await validate(root)).toMatchObject({ errors: 0 });
  });
});
