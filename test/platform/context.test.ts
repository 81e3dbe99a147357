import { describe, expect, it } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

describe('@ctx on the platform (restfn serve)', () => {
  it("gives the platform's solution id and user, the request's time zone, named expressions; a missing credential reaches the handlers", async () => {
    const service = await testServer((req, res) => json(res, 200, JSON.parse(req.body)));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'solution.yaml':
            'name: crm\nid: device-id\norganization: { id: org-1, name: Acme }\nexpressions:\n  who: =@ctx.user.displayName & "@" & @ctx.solution.id\n',
          'functions/rest-echo.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${service.url}/echo
parameters:
  x:
    location: body
    type: object
    value: '={"who": @ctx.expressions.who, "org": @ctx.organization.name, "tz": @ctx.system.timezone.name, "offline": @ctx.system.isOffline}'
outputTransform: $.x
`,
          'functions/rest-keyed.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service.url}/keyed
parameters:
  x-api-key: { location: header, type: secret, value: never-stored }
error:
  - when: =@ctx.error.name = 'CredentialNotFoundError'
    title: ='No key for ' & @ctx.solution.id
    alert:
      subtitle: =@ctx.error.name
      style: { isWarning: true }
`,
        },
      },
    });
    expect(published.status).toBe(201);

    const echo = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-echo/execute', {
      token: admin,
      body: { context: { system: { timezone: 'Asia/Tokyo' } } },
    });
    expect(echo.body).toMatchObject({
      status: 'ok',
      output: { who: 'admin@crm', org: 'Acme', tz: 'Asia/Tokyo', offline: false },
    });

    const keyed = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-keyed/execute', {
      token: admin,
      body: {},
    });
    expect(keyed.body).toMatchObject({
      status: 'error',
      code: 'CREDENTIAL_NOT_FOUND',
      title: 'No key for crm',
      alert: { title: 'No key for crm', subtitle: 'CredentialNotFoundError', isWarning: true },
    });
    expect(service.requests.map((r) => r.url)).toEqual(['/echo']);
  });
});
