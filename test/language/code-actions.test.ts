import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/definition/diagnostic.js';
import { quickFixesAt } from '../../src/language/code-actions.js';
import { diagnosticRange } from '../../src/language/range.js';
import { LanguageService } from '../../src/language/service.js';
import { applyEdits } from '../../src/language/text-edit.js';

// Quick fixes on a realistic solution: each fix's edits are applied to the text as an editor
// would, the file is validated again through the service, and the finding must be gone with no
// other finding coming or going (the missing-parameter fix's `<TODO>` excepted: it is meant to be
// pointed at until the author gives the value).
const ROOT = '/nowhere/crm';
const at = (p: string) => join(ROOT, p);

const SOLUTION = `name: crm
settings:
  custom:
    baseUrl: https://crm.example.com
`;

const GET_CUSTOMER = `provider: DATA_PROVIDER_REST
method: GET
url: https://crm.example.com/customers/{id}
parameters:
  id:
    location: path
    type: string
    required: true
  region:
    location: query
    type: string
    required: true
  Authorization:
    location: header
    type: secret
    value: crm-token
outputTransform: $
`;

const SECRET = 'sk_live_9fQ2xT7bLm3KpZr8VwYc';
const BEARER = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';

function service(files: Record<string, string>): LanguageService {
  return new LanguageService(
    ROOT,
    new Map(
      Object.entries({
        'solution.yaml': SOLUTION,
        'functions/get-customer.platform': GET_CUSTOMER,
        ...files,
      }).map(([p, t]) => [at(p), t]),
    ),
  );
}

const key = (d: Diagnostic) => `${d.code} ${d.line}:${d.col}`;

/** Applies the one fix offered for the finding `code` of `file`; returns the new text and findings. */
async function fix(s: LanguageService, file: string, code: string) {
  const path = at(file);
  const before = (await s.diagnostics([path])).get(path)!;
  const finding = before.find((d) => d.code === code);
  expect(finding, `${code} in ${before.map(key).join(', ')}`).toBeDefined();
  const text = s.text(path)!;
  const fixes = (await quickFixesAt(s, path, diagnosticRange(finding!, text))).filter(
    (f) => f.diagnostic.code === code,
  );
  expect(fixes).toHaveLength(1);
  const after = applyEdits(text, fixes[0]!.edits);
  s.setText(path, after);
  const found = (await s.diagnostics([path])).get(path)!;
  return { fix: fixes[0]!, finding: finding!, before, after, found };
}

/** The findings after a fix are those before it, less the fixed one. */
function onlyFixed(r: Awaited<ReturnType<typeof fix>>) {
  const codes = (list: Diagnostic[]) => list.map((d) => `${d.code} ${d.message}`).sort();
  expect(codes(r.found)).toEqual(codes(r.before.filter((d) => d !== r.finding)));
}

describe('did-you-mean quick fixes replace exactly the misspelt word', () => {
  test('a key typo', async () => {
    const r = await fix(
      service({
        'functions/list.platform':
          'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://crm.example.com/c\noutputTransfrom: $.items\n',
      }),
      'functions/list.platform',
      'UNKNOWN_KEY',
    );
    expect(r.fix.title).toBe("Change to 'outputTransform'");
    expect(r.after).toContain('\noutputTransform: $.items\n');
    onlyFixed(r);
  });

  test('a quoted key typo: the quote stays', async () => {
    const r = await fix(
      service({
        'functions/list.platform':
          'provider: DATA_PROVIDER_REST\n"methd": GET\nurl: https://crm.example.com/c\n',
      }),
      'functions/list.platform',
      'UNKNOWN_KEY',
    );
    expect(r.after).toContain('\n"method": GET\n');
    expect(r.found).toEqual([]);
  });

  test('an enum value typo, quoted or not', async () => {
    const r = await fix(
      service({
        'functions/list.platform':
          'provider: DATA_PROVIDER_REST\nmethod: "PSOT"\nurl: https://crm.example.com/c\n',
      }),
      'functions/list.platform',
      'INVALID_VALUE',
    );
    expect(r.after).toContain('method: "POST"\n');
    expect(r.found).toEqual([]);
  });

  test("an action's type", async () => {
    const r = await fix(
      service({ 'actions/back.platform': 'action:\n  type: action.go-bak\n' }),
      'actions/back.platform',
      'INVALID_VALUE',
    );
    expect(r.after).toBe('action:\n  type: action.go-back\n');
    expect(r.found).toEqual([]);
  });

  // Finding 7: a parameter the action does not declare.
  test("an action's undeclared parameter", async () => {
    const action = (name: string) => `action:
  type: action.execute-entity
  options:
    provider: DATA_PROVIDER_REST
    entity: customers
    method: functionCall
    function: get-customer
    parameters:
      id: =@ctx.action.parameters.id
      region: =@ctx.action.parameters.${name}
parameters:
  id: { type: string }
  name: { type: string }
  email: { type: string }
`;
    const r = await fix(
      service({ 'actions/open.platform': action('nme') }),
      'actions/open.platform',
      'CONTEXT_PATH',
    );
    expect(r.finding.message).toBe(
      "@ctx.action.parameters.nme: the action declares no parameter 'nme' (did you mean 'name'?), so it reads nothing",
    );
    expect(r.fix.title).toBe("Change to 'name'");
    expect(r.after).toBe(action('name'));
    expect(r.found).toEqual([]);
  });

  test('an action that declares no parameters: @ctx.action.parameters is not checked', async () => {
    const s = service({
      'actions/open.platform':
        'type: action.execute-entity\noptions:\n  provider: DATA_PROVIDER_REST\n  entity: customers\n  method: functionCall\n  function: get-customer\n  parameters:\n    id: =@ctx.action.parameters.anything\n    region: eu\n',
    });
    const path = at('actions/open.platform');
    expect((await s.diagnostics([path])).get(path)).toEqual([]);
  });

  test('an unknown function name in a datasource', async () => {
    const r = await fix(
      service({
        'datasources/customer.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: customers
      function: get-custmer
      functionParameters: { id: c-1, region: eu }
`,
      }),
      'datasources/customer.platform',
      'UNKNOWN_FUNCTION',
    );
    expect(r.after).toContain('      function: get-customer\n');
    expect(r.found).toEqual([]);
  });

  test('an unknown parameter in an @ctx path, inside a block expression', async () => {
    const file = GET_CUSTOMER.replace(
      'outputTransform: $\n',
      'outputTransform: |\n  {\n    "id": @ctx.parameters.ide,\n    "name": name\n  }\n',
    );
    const r = await fix(
      service({ 'functions/get-customer.platform': file }),
      'functions/get-customer.platform',
      'CONTEXT_PATH',
    );
    expect(r.after).toContain('    "id": @ctx.parameters.id,\n');
    onlyFixed(r);
  });

  test('a misspelt context name, a settings key, a JSONata function, each in one expression', async () => {
    const file = GET_CUSTOMER.replace(
      'outputTransform: $\n',
      'outputTransform: =$uppercse(@ctx.respnse.body.name) & @.solution.settings.custom.baseUrll\n',
    );
    const s = service({ 'functions/get-customer.platform': file });
    const path = at('functions/get-customer.platform');
    const found = (await s.diagnostics([path])).get(path)!;
    expect(found.map((d) => d.code).sort()).toEqual(['CONTEXT_PATH', 'CONTEXT_PATH', 'UNKNOWN_NAME']);
    const fixes = await quickFixesAt(s, path, {
      start: { line: 0, character: 0 },
      end: { line: 99, character: 0 },
    });
    expect(fixes.map((f) => f.title).sort()).toEqual([
      "Change to 'baseUrl'",
      "Change to 'response'",
      "Change to 'uppercase'",
    ]);
    const after = applyEdits(
      s.text(path)!,
      fixes.flatMap((f) => f.edits),
    );
    expect(after).toContain(
      'outputTransform: =$uppercase(@ctx.response.body.name) & @.solution.settings.custom.baseUrl\n',
    );
    s.setText(path, after);
    expect((await s.diagnostics([path])).get(path)).toEqual([]);
  });

  test('an unknown parameter a datasource passes', async () => {
    const r = await fix(
      service({
        'datasources/customer.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: customers
      function: get-customer
      functionParameters:
        id: c-1
        regoin: eu
`,
      }),
      'datasources/customer.platform',
      'CALL_PARAMETER_UNKNOWN',
    );
    expect(r.finding.message).toContain(
      "function 'get-customer' has no parameter 'regoin' (did you mean 'region'?)",
    );
    // The misspelt name was also why the required region was missing: both are gone.
    expect(r.before.map((d) => d.code).sort()).toEqual(['CALL_PARAMETER_MISSING', 'CALL_PARAMETER_UNKNOWN']);
    expect(r.after).toContain('        id: c-1\n        region: eu\n');
    expect(r.found).toEqual([]);
  });

  test("a script's function, a datasource read and a scope value", async () => {
    const file = GET_CUSTOMER.replace(
      'outputTransform: $\n',
      'outputTransform: =$dates.fromat(@ctx.datasources.custmers[0].at)\nforRowsWithValues:\n  region: regin\n',
    );
    const s = service({
      'functions/get-customer.platform': file,
      'datasources/customers.platform': `type: datasource.static\noptions:\n  data: []\n`,
    });
    s.setText(at('scripts/expressions/dates.js'), 'export function format(d) { return d; }\n');
    const path = at('functions/get-customer.platform');
    const found = (await s.diagnostics([path])).get(path)!;
    expect(found.map((d) => d.code).sort()).toEqual([
      'SCOPE_UNKNOWN_PARAM',
      'UNKNOWN_DATASOURCE',
      'UNKNOWN_NAME',
    ]);
    const fixes = await quickFixesAt(s, path, {
      start: { line: 0, character: 0 },
      end: { line: 99, character: 0 },
    });
    const after = applyEdits(
      s.text(path)!,
      fixes.flatMap((f) => f.edits),
    );
    expect(after).toContain(
      'outputTransform: =$dates.format(@ctx.datasources.customers[0].at)\nforRowsWithValues:\n  region: region\n',
    );
    s.setText(path, after);
    expect((await s.diagnostics([path])).get(path)).toEqual([]);
  });

  test('a parameter type', async () => {
    const file = GET_CUSTOMER.replace(
      '    location: query\n    type: string',
      '    location: query\n    type: strng',
    );
    const r = await fix(
      service({ 'functions/get-customer.platform': file }),
      'functions/get-customer.platform',
      'PARAMETER_TYPE_UNKNOWN',
    );
    expect(r.after).toBe(GET_CUSTOMER);
    onlyFixed(r);
  });

  test('only the findings touching the asked range get fixes', async () => {
    const s = service({
      'functions/list.platform':
        'provider: DATA_PROVIDER_REST\nmethd: GET\nurl: https://crm.example.com/c\noutputTransfrom: $\n',
    });
    const path = at('functions/list.platform');
    const fixes = await quickFixesAt(s, path, {
      start: { line: 3, character: 2 },
      end: { line: 3, character: 2 },
    });
    expect(fixes.map((f) => f.title)).toEqual(["Change to 'outputTransform'"]);
  });
});

describe('add the missing required parameter', () => {
  const DATASOURCE = (entity: string) => `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: customers
      function: get-customer
${entity}  query: SELECT id, data FROM [customers]
`;

  test('no parameters yet: the map is made after function:', async () => {
    const r = await fix(
      service({ 'datasources/customer.platform': DATASOURCE('') }),
      'datasources/customer.platform',
      'CALL_PARAMETER_MISSING',
    );
    expect(r.fix.title).toBe("Add the missing required parameters 'id', 'region'");
    expect(r.after).toBe(
      DATASOURCE('      functionParameters:\n        id: <TODO>\n        region: <TODO>\n'),
    );
    // The call is complete; what is left is the placeholders, each pointed at.
    expect(r.found.map(key)).toEqual(['TODO_VALUE 8:13', 'TODO_VALUE 9:17']);
  });

  test('some given: the others under them, at their indentation', async () => {
    const r = await fix(
      service({
        'datasources/customer.platform': DATASOURCE('      functionParameters:\n          region: eu\n'),
      }),
      'datasources/customer.platform',
      'CALL_PARAMETER_MISSING',
    );
    expect(r.after).toBe(
      DATASOURCE('      functionParameters:\n          region: eu\n          id: <TODO>\n'),
    );
    expect(r.found.map(key)).toEqual(['TODO_VALUE 9:15']);
  });

  test("an action's parameters written in flow style", async () => {
    const action = `action:
  type: action.execute-entity
  options:
    provider: DATA_PROVIDER_REST
    entity: customers
    method: functionCall
    function: get-customer
    parameters: { id: =@ctx.current.item.id }
`;
    const r = await fix(
      service({ 'actions/open.platform': action }),
      'actions/open.platform',
      'CALL_PARAMETER_MISSING',
    );
    expect(r.after).toContain('    parameters: { id: =@ctx.current.item.id, region: <TODO> }\n');
    expect(r.found.map((d) => d.code)).toEqual(['TODO_VALUE']);
  });

  // Finding 12: in an action declaring the parameter, the advice is the caller's value.
  test("in an action declaring the parameter, TODO_VALUE's advice reads the action's parameter", async () => {
    const action = `action:
  type: action.execute-entity
  options:
    provider: DATA_PROVIDER_REST
    entity: customers
    method: functionCall
    function: get-customer
    parameters:
      id: =@ctx.action.parameters.id
parameters:
  id: { type: string }
  region: { type: string }
`;
    const r = await fix(
      service({ 'actions/open.platform': action }),
      'actions/open.platform',
      'CALL_PARAMETER_MISSING',
    );
    expect(r.after).toContain('      id: =@ctx.action.parameters.id\n      region: <TODO>\n');
    expect(r.found.map((d) => d.message)).toEqual([
      'region is <TODO>, a placeholder to fill in: give the value (a literal, or an expression such as =@ctx.action.parameters.region), or remove the line if the function has a default for it',
    ]);
  });
});

// Finding 8: an expression YAML cannot read as written is said to need quotes, and the fix quotes it.
describe('quote an expression YAML could not read', () => {
  const FN = (transform: string) =>
    `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://crm.example.com/c\noutputTransform: ${transform}\n`;

  test.each([
    ['=$merge([$, { "updated": true }])', `'=$merge([$, { "updated": true }])'`],
    ["$merge([$, { 'updated': true }])", "'$merge([$, { ''updated'': true }])'"],
  ])('%s', async (plain, quoted) => {
    const r = await fix(
      service({ 'functions/list.platform': FN(plain) }),
      'functions/list.platform',
      'YAML_SYNTAX',
    );
    expect(r.finding.message).toContain(
      `quote it (outputTransform: '=$merge([$, { "updated": true }])', a ' inside written '') or write it as a block scalar (outputTransform: | and the expression on the next line, indented)`,
    );
    expect(r.fix.title).toBe('Quote the expression');
    expect(r.after).toBe(FN(quoted));
    expect(r.found).toEqual([]);
  });

  test('a YAML error elsewhere keeps its advice, and gets no such fix', async () => {
    const s = service({
      'functions/list.platform':
        'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://crm.example.com/c\ndescription: a { b: c }\n',
    });
    const path = at('functions/list.platform');
    const found = (await s.diagnostics([path])).get(path)!;
    expect(found.map((d) => d.code)).toContain('YAML_SYNTAX');
    for (const d of found) expect(d.message).not.toContain('quote it');
    const fixes = await quickFixesAt(s, path, diagnosticRange(found[0]!, s.text(path)!));
    expect(fixes).toEqual([]);
  });
});

describe('store this literal credential', () => {
  const FN = (parameter: string) => `provider: DATA_PROVIDER_REST
method: GET
url: https://crm.example.com/customers
parameters:
${parameter}outputTransform: $
`;

  test('an Authorization header holding a bearer token', async () => {
    const r = await fix(
      service({
        'functions/list.platform': FN(
          `  Authorization:\n    location: header\n    value: "Bearer ${BEARER}"\n`,
        ),
      }),
      'functions/list.platform',
      'LITERAL_CREDENTIAL',
    );
    expect(r.after).toBe(
      FN('  Authorization:\n    location: header\n    type: secret\n    value: bearer-token\n'),
    );
    expect(r.fix.command).toBe(
      'restfn credentials set bearer-token --kind bearer --origin https://crm.example.com',
    );
    expect(r.found).toEqual([]);
    // The secret is gone from the file, and neither the title nor the command holds it.
    expect(JSON.stringify([r.after, r.fix.title, r.fix.command])).not.toContain(BEARER);
  });

  test('an api key with a declared type, in flow style', async () => {
    const r = await fix(
      service({
        'functions/list.platform': FN(`  apiKey: { location: query, type: string, value: ${SECRET} }\n`),
      }),
      'functions/list.platform',
      'LITERAL_CREDENTIAL',
    );
    expect(r.after).toBe(FN('  apiKey: { location: query, type: secret, value: api-key }\n'));
    expect(r.fix.command).toBe(
      'restfn credentials set api-key --kind secret --origin https://crm.example.com',
    );
    expect(r.found).toEqual([]);
    expect(JSON.stringify([r.after, r.fix])).not.toContain(SECRET);
  });

  test('a key another function already names is not reused: storing would replace its credential', async () => {
    const r = await fix(
      service({
        'functions/list.platform': FN(
          `  Authorization:\n    location: header\n    value: "Bearer ${BEARER}"\n`,
        ),
        'functions/other.platform': FN(
          '  Authorization:\n    location: header\n    type: secret\n    value: bearer-token\n',
        ),
      }),
      'functions/list.platform',
      'LITERAL_CREDENTIAL',
    );
    expect(r.after).toContain('    value: list-bearer-token\n');
    expect(r.fix.command).toBe(
      'restfn credentials set list-bearer-token --kind bearer --origin https://crm.example.com',
    );
    expect(r.found).toEqual([]);
  });

  test('a secret parameter holding the value instead of a key', async () => {
    const r = await fix(
      service({
        'functions/list.platform': FN(
          `  X-Api-Key:\n    location: header\n    type: secret\n    value: '${SECRET}'\n`,
        ),
      }),
      'functions/list.platform',
      'LITERAL_CREDENTIAL',
    );
    expect(r.after).toBe(FN('  X-Api-Key:\n    location: header\n    type: secret\n    value: x-api-key\n'));
    expect(r.fix.command).toBe(
      'restfn credentials set x-api-key --kind secret --origin https://crm.example.com',
    );
    expect(r.found).toEqual([]);
  });

  // Finding 6: a literal under a credential's name, whatever it looks like, is found and fixed.
  test.each([
    ['k-123', ''],
    ['9f8e7d6c5b4a39281706f5e4d3c2b1a0', '    type: string\n'],
  ])('an x-api-key header holding %s', async (literal, type) => {
    const r = await fix(
      service({
        'functions/list.platform': FN(`  x-api-key:\n    location: header\n${type}    value: ${literal}\n`),
      }),
      'functions/list.platform',
      'LITERAL_CREDENTIAL',
    );
    expect(r.finding.message).toContain("parameter 'x-api-key' is a credential by its name");
    expect(r.after).toBe(FN(`  x-api-key:\n    location: header\n    type: secret\n    value: x-api-key\n`));
    expect(r.found).toEqual([]);
    expect(JSON.stringify([r.after, r.fix])).not.toContain(literal);
  });

  test('a credential-typed parameter naming a key, and names that only contain a word of one, are not flagged', async () => {
    const s = service({
      'functions/list.platform': FN(
        '  x-api-key:\n    location: header\n    type: secret\n    value: crm-key\n  pageToken:\n    location: query\n    value: first\n  author:\n    location: query\n    value: ann\n',
      ),
    });
    const path = at('functions/list.platform');
    expect((await s.diagnostics([path])).get(path)).toEqual([]);
  });

  // Finding 11: the stored keys of the same kind are offered too, keys only.
  test('a stored credential key is offered in place of a new one', async () => {
    const s = service({
      'functions/list.platform': FN('  x-api-key:\n    location: header\n    value: k-123\n'),
    });
    s.setCredentialKeys(() => [
      { key: 'crm-key', kind: 'secret', origin: 'local' },
      { key: 'crm-key', kind: 'secret', origin: 'platform' },
      { key: 'crm-oauth', kind: 'oauth', origin: 'local' },
    ]);
    const path = at('functions/list.platform');
    const finding = (await s.diagnostics([path])).get(path)!.find((d) => d.code === 'LITERAL_CREDENTIAL')!;
    const text = s.text(path)!;
    const fixes = await quickFixesAt(s, path, diagnosticRange(finding, text));
    expect(fixes.map((f) => f.title)).toEqual([
      "Store this credential as 'x-api-key' (then run: restfn credentials set x-api-key --kind secret --origin https://crm.example.com)",
      "Use the stored credential 'crm-key' (its value replaces this one)",
    ]);
    const after = applyEdits(text, fixes[1]!.edits);
    expect(after).toBe(FN('  x-api-key:\n    location: header\n    type: secret\n    value: crm-key\n'));
    expect(fixes[1]!.command).toBeUndefined();
    s.setText(path, after);
    expect((await s.diagnostics([path])).get(path)).toEqual([]);
  });
});
