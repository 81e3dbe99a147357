import { describe, expect, test } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { validateSolution } from '../../src/definition/validate.js';
import { recordingClock } from '../helpers/clock.js';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';
import { tempSolution } from '../helpers/temp-solution.js';

/** A function that sends what `value` gives as its JSON body, and gives the body back. */
const echo = (url: string, value: string) => `provider: DATA_PROVIDER_REST
method: POST
url: ${url}/echo
parameters:
  x: { location: body, type: object, value: ${JSON.stringify(value)} }
outputTransform: $.x
`;

describe('@ctx.solution, @ctx.organization, @ctx.system', () => {
  test("on the device: solution.yaml's id and organization, the process's time zone unless the runtime's is given", async () => {
    const server = await testServer((req, res) => json(res, 200, JSON.parse(req.body)));
    const runtime = runtimeFor(
      {
        'solution.yaml': 'name: crm\nid: crm-7\norganization: { id: org-1, name: Acme }\n',
        'functions/fn.platform': echo(
          server.url,
          '={"id": @ctx.solution.id, "name": @ctx.solution.name, "org": @ctx.organization, "tz": @ctx.system.timezone, "locale": @ctx.system.locale, "offline": @ctx.system.isOffline}',
        ),
      },
      // 21 Nov 2026 (winter in Europe): Zurich is one hour ahead.
      {
        clock: recordingClock(Date.UTC(2026, 10, 21)),
        system: { timezone: 'Europe/Zurich' },
        locale: 'de_CH',
      },
    );
    const result = await runtime.execute('fn', {});
    expect(result.status === 'ok' && result.output).toEqual({
      id: 'crm-7',
      name: 'crm',
      org: { id: 'org-1', name: 'Acme' },
      tz: { name: 'Europe/Zurich', offset: '+0100' },
      locale: 'de-CH',
      offline: false,
    });
  });

  test("without an id the solution's name is its id; a caller's context gives its own time zone (in summer time)", async () => {
    const server = await testServer((req, res) => json(res, 200, JSON.parse(req.body)));
    const runtime = runtimeFor(
      {
        'solution.yaml': 'name: crm\n',
        'functions/fn.platform': echo(
          server.url,
          '={"id": @ctx.solution.id, "tz": @ctx.system.timezone, "at": $fromMillis(0, "[H01]:[m01]", @ctx.system.timezone.offset)}',
        ),
      },
      { clock: recordingClock(Date.UTC(2026, 6, 1)) },
    );
    const result = await runtime.execute('fn', {}, { system: { timezone: 'America/New_York' } });
    expect(result.status === 'ok' && result.output).toEqual({
      id: 'crm',
      tz: { name: 'America/New_York', offset: '-0400' },
      at: '20:00',
    });
  });
});

describe('@ctx.system is made when first read, as of the execution start', () => {
  test('a retry wait across a change of summer time does not change the offset an expression reads', async () => {
    let calls = 0;
    const server = await testServer((_req, res) => json(res, calls++ === 0 ? 503 : 200, { ok: true }));
    // 25 Oct 2026 00:59 UTC: Zurich is still on summer time (+0200) for one more minute; the retry
    // waits two minutes on the injected clock, and the answer is read after it (+0100 by then).
    const clock = recordingClock(Date.UTC(2026, 9, 25, 0, 59));
    const runtime = runtimeFor(
      {
        'solution.yaml': 'name: s\n',
        'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
error:
  - when: =@ctx.response.status = 503
    retry: { delay: 120000, maxRetries: 1 }
outputTransform: '{ "offset": @ctx.system.timezone.offset }'
`,
      },
      { clock, system: { timezone: 'Europe/Zurich' } },
    );
    const result = await runtime.execute('fn', {});
    expect(clock.delays).toEqual([120000]);
    expect(result.status === 'ok' && result.output).toEqual({ offset: '+0200' });
  });
});

describe('solution-level expressions', () => {
  const files = (url: string, value: string) => ({
    'solution.yaml': `name: s
settings:
  custom: { region: eu }
expressions:
  region: =$uppercase(@ctx.solution.settings.custom.region)
  greeting: ="Hello " & @ctx.parameters.who & " from " & @ctx.expressions.region
  format: |
    =function($n) { $formatNumber($n, '#,##0.00') }
`,
    'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${url}/echo
parameters:
  who: { location: body, type: string }
  x: { location: body, type: object, value: ${JSON.stringify(value)} }
outputTransform: $.x
`,
  });

  test("a name is evaluated where it is read, against the reader's context; a function-valued one is called", async () => {
    const server = await testServer((req, res) => json(res, 200, JSON.parse(req.body)));
    const runtime = runtimeFor(
      files(
        server.url,
        '={"g": @ctx.expressions.greeting, "r": @.expressions.region, "p": @ctx.expressions.format(1234.5)}',
      ),
    );
    const ann = await runtime.execute('fn', { who: 'Ann' });
    expect(ann.status === 'ok' && ann.output).toEqual({ g: 'Hello Ann from EU', r: 'EU', p: '1,234.50' });
    const bob = await runtime.execute('fn', { who: 'Bob' });
    expect(bob.status === 'ok' && bob.output).toMatchObject({ g: 'Hello Bob from EU' });
  });

  test("a name is also read as $name (named expressions read each other so); JSONata's own names and local variables win", async () => {
    const server = await testServer((req, res) => json(res, 200, JSON.parse(req.body)));
    const runtime = runtimeFor({
      ...files(
        server.url,
        '={"shout": $shout, "fmt": $format(2), "now": $type($now()), "local": ($region := "x"; $region), "text": "$region"}',
      ),
      'solution.yaml': `name: s
settings:
  custom: { region: eu }
expressions:
  region: =$uppercase(@ctx.solution.settings.custom.region)
  shout: =$region & "!"
  now: ="not the clock"
  format: |
    =function($n) { $formatNumber($n, '#,##0.00') }
`,
    });
    const result = await runtime.execute('fn', {});
    expect(result.status === 'ok' && result.output).toEqual({
      shout: 'EU!',
      fmt: '2.00',
      now: 'string',
      local: 'x',
      text: '$region',
    });
    const { diagnostics } = await validateSolution(loadSolution(runtime.solution.root));
    expect(diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([]);
  });

  test('validate: an unknown name is a warning with a suggestion, a circle is an error at each name, syntax at its line', async () => {
    const root = tempSolution({
      'solution.yaml': `name: s
expressions:
  a: =@ctx.expressions.b & 'x'
  b: =@ctx.expressions.a
  broken: =1 +
`,
      'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: GET
url: https://example.test/x
parameters:
  q: { location: query, type: string, value: =@ctx.expressions.brokn }
`,
    });
    const { diagnostics } = await validateSolution(loadSolution(root, { displayBase: root }));
    const shown = diagnostics.map((d) => `${d.file}:${d.line} ${d.code} ${d.message}`);
    expect(shown).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^solution\.yaml:3 NAMED_EXPRESSION_CYCLE .*a -> b -> a/),
        expect.stringMatching(/^solution\.yaml:4 NAMED_EXPRESSION_CYCLE .*b -> a -> b/),
        expect.stringMatching(/^solution\.yaml:5 EXPRESSION_SYNTAX/),
        expect.stringMatching(
          /^functions\/fn\.platform:5 CONTEXT_PATH .*no expression 'brokn' \(did you mean 'broken'\?\)/,
        ),
      ]),
    );
  });

  test('validate: typos in the context paths of datasources, actions and solution.yaml are found as in functions; a misspelt $name is said as the named expression', async () => {
    const root = tempSolution({
      'solution.yaml': `name: s
settings:
  custom: { region: eu }
expressions:
  today: =$substring($now(), 0, 10)
  tz: =@ctx.system.timezon.name
`,
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: https://example.test/items
parameters:
  since: { location: query, type: string, value: =$todya }
`,
      'datasources/open-items.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: items
      function: rest-get-items
  query: SELECT id FROM [items] WHERE '$.due' < @today AND '$.region' = @region
  queryParameters:
    today: =@ctx.expressions.tody
    region: =@ctx.solution.settings.custom.region
`,
      'actions/close-items.platform': `action:
  type: action.execute-entities
  options:
    provider: DATA_PROVIDER_REST
    entity: items
    method: update
    data: =@ctx.datasources.open-item
    functionParameters:
      id: =@ctx.current.item.id
      note: =@ctx.action.parameters.note & @ctx.jig.inputs.x & @ctx.inputs.y & $today
parameters:
  note: { type: string }
`,
    });
    const { diagnostics } = await validateSolution(loadSolution(root, { displayBase: root }));
    expect(diagnostics.map((d) => `${d.file}:${d.line} ${d.code} ${d.message}`).sort()).toEqual([
      expect.stringMatching(
        /^actions\/close-items\.platform:7 UNKNOWN_DATASOURCE @ctx\.datasources\.open-item: .*did you mean 'open-items'/,
      ),
      expect.stringMatching(
        /^datasources\/open-items\.platform:9 CONTEXT_PATH @ctx\.expressions\.tody: .*did you mean 'today'/,
      ),
      expect.stringMatching(
        /^functions\/rest-get-items\.platform:5 UNKNOWN_NAME unknown variable \$todya \(did you mean \$today/,
      ),
      expect.stringMatching(
        /^solution\.yaml:6 CONTEXT_PATH @ctx\.system\.timezon is not there \(did you mean @ctx\.system\.timezone/,
      ),
    ]);
  });

  test('a circle found while running is a coded evaluation error naming solution.yaml', async () => {
    const server = await testServer((req, res) => json(res, 200, JSON.parse(req.body)));
    const runtime = runtimeFor({
      'solution.yaml': 'name: s\nexpressions:\n  a: =@ctx.expressions.b\n  b: =@ctx.expressions.a\n',
      'functions/fn.platform': echo(server.url, '=@ctx.expressions.a'),
    });
    await expect(runtime.execute('fn', {})).rejects.toMatchObject({
      code: 'EXPRESSION_EVALUATION',
      message: expect.stringMatching(/^solution\.yaml:\d+:\d+ .*circle \(a -> b -> a\)/),
    });
    expect(server.requests).toHaveLength(0);
  });
});
