import { describe, expect, test } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { validateSolution } from '../../src/definition/validate.js';
import { tempSolution } from '../helpers/temp-solution.js';

async function findings(text: string) {
  const root = tempSolution({ 'functions/rest-fn.platform': text });
  return (await validateSolution(loadSolution(root, { displayBase: root }))).diagnostics;
}

describe('messages say how to fix', () => {
  test('an unknown key suggests the closest known one', async () => {
    const [d] = await findings(
      'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://x\noutputTransfrom: $\n',
    );
    expect(d).toMatchObject({ code: 'UNKNOWN_KEY', line: 4, col: 1 });
    expect(d!.message).toContain("did you mean 'outputTransform'?");
  });

  test('a wrong enum value suggests the closest allowed one', async () => {
    const [d] = await findings('provider: DATA_PROVIDER_REST\nmethod: PSOT\nurl: http://x\n');
    expect(d!.message).toBe(
      "method must be one of DELETE, GET, HEAD, PUT, PATCH, POST (did you mean 'POST'?)",
    );
  });

  test('an unknown operation type lists the types', async () => {
    const [d] = await findings(
      'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://x\noperations:\n  - type: operation.upsert-merg\n',
    );
    expect(d!.message).toContain("did you mean 'operation.upsert-merge'?");
  });

  test('undeclared placeholders say which parameter to add', async () => {
    const [d] = await findings('provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://x/{id}\n');
    expect(d!.message).toBe(
      "url placeholder {id} has no path parameter; add a parameter 'id' with 'location: path' and 'required: true'",
    );
  });
});

describe('secrets never appear in findings', () => {
  const SECRETS = [
    'Zq8mK2pLx9Rv4Tn7Wc3Yb6Hd',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0',
    'hunter2-Secret-99',
    'sk_live_51HcWxEXAMPLE',
  ];
  test('literal credentials are reported without their values', async () => {
    const text = `provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/items?api_key=${SECRETS[2]}
parameters:
  Authorization:
    location: header
    type: string
    value: Bearer ${SECRETS[1]}
  x-api-key:
    location: header
    type: string
    value: ${SECRETS[0]}
  password:
    location: header
    type: secret
    value: ${SECRETS[3]}
`;
    const all = await findings(text);
    expect(all.map((d) => d.code).sort()).toEqual([
      'LITERAL_CREDENTIAL',
      'LITERAL_CREDENTIAL',
      'LITERAL_CREDENTIAL',
      'LITERAL_CREDENTIAL',
      'URL_QUERY_REPLACED',
    ]);
    const printed = JSON.stringify(all);
    for (const secret of SECRETS) expect(printed).not.toContain(secret);
  });

  test('schema errors do not echo the wrong value', async () => {
    const all = await findings(
      `provider: DATA_PROVIDER_REST\nmethod: ${SECRETS[0]}\nurl: http://x\nparameters:\n  a:\n    location: header\n    required: ${SECRETS[2]}\n`,
    );
    expect(all.map((d) => d.code)).toEqual(['INVALID_VALUE', 'INVALID_VALUE']);
    const printed = JSON.stringify(all);
    for (const secret of SECRETS) expect(printed).not.toContain(secret);
  });
});
