import { describe, expect, test } from 'vitest';
import type { Alert } from '../../src/errors/alerts.js';
import type { ExecutionEvent } from '../../src/runtime/events.js';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';
import { syncSetup } from '../helpers/sync.js';

describe("an error handler's texts and alert", () => {
  test('title, description, subtitle and button texts written as expressions are evaluated; the alert carries every field', async () => {
    const server = await testServer((_, res) => json(res, 403, { reason: 'locked', retryIn: 30 }));
    const runtime = runtimeFor(
      {
        'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
error:
  - when: =@ctx.response.status = 403
    icon: lock-2
    title: '="Access denied: " & @ctx.response.body.reason'
    description:
      en: =@ctx.response.body.reason & " (in English)"
      de: '="Gesperrt: " & @ctx.response.body.reason'
    alert:
      title: ='Unable to open ' & @ctx.solution.name
      subtitle: =@ctx.response.status & ''
      dismiss: { autoAfter: =@ctx.response.body.retryIn, isEnabled: false }
      style: { isWarning: true }
      presentAs: modal
      actions:
        - title: ='Retry in ' & @ctx.response.body.retryIn & 's'
          action: go-back
`,
      },
      { locale: 'de_CH' },
    );
    const alerts: Alert[] = [];
    runtime.on((e: ExecutionEvent) => {
      if (e.type === 'alert') alerts.push(e.alert);
    });
    const failure = await runtime.execute('fn').catch((e: unknown) => e);
    expect(failure).toMatchObject({
      code: 'REMOTE_ERROR',
      title: 'Access denied: locked',
      description: 'Gesperrt: locked',
    });
    const expected = {
      title: `Unable to open ${runtime.solution.name}`,
      subtitle: '403',
      description: 'Gesperrt: locked',
      icon: 'lock-2',
      isWarning: true,
      isNegative: false,
      isPositive: false,
      presentAs: 'modal',
      dismiss: { isEnabled: false, autoAfterSeconds: 30 },
      actions: [{ title: 'Retry in 30s', action: 'go-back' }],
    };
    expect(alerts).toEqual([expect.objectContaining(expected)]);
    expect((failure as { alert: unknown }).alert).toMatchObject(expected);
  });
});

describe('a missing credential reaches the error handlers', () => {
  const fn = (url: string, parameter: string, handlerName: string) => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/x
parameters:
${parameter}
error:
  - when: =@ctx.error.name = 'REMOTE_ERROR'
    title: not this one
  - when: =@ctx.error.name = '${handlerName}'
    title: ='Sign in to ' & @ctx.solution.name
    alert:
      description: ='Connect your account (' & @ctx.error.name & ')'
      presentAs: modal
      group: { id: no-credentials }
    operations:
      - type: operation.upsert-merge
        table: restFunctionErrors
        records: '={"id": "last", "error": @ctx.error.name, "message": @ctx.error.message}'
`;

  test('a secret not stored: CredentialNotFoundError; its operations and alert run, then the run fails with CREDENTIAL_NOT_FOUND', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const { runtime, store } = syncSetup({
      'solution.yaml': 'name: crm\n',
      'functions/fn.platform': fn(
        server.url,
        '  x-api-key: { location: header, type: secret, value: crm-key }',
        'CredentialNotFoundError',
      ),
    });
    const alerts: Alert[] = [];
    runtime.on((e: ExecutionEvent) => {
      if (e.type === 'alert') alerts.push(e.alert);
    });
    const failure = await runtime.execute('fn').catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'CREDENTIAL_NOT_FOUND', title: 'Sign in to crm' });
    expect(alerts).toEqual([
      expect.objectContaining({
        title: 'Sign in to crm',
        description: 'Connect your account (CredentialNotFoundError)',
        presentAs: 'modal',
        groupId: 'no-credentials',
      }),
    ]);
    expect(store.rows('restFunctionErrors')).toEqual([
      {
        id: 'last',
        error: 'CredentialNotFoundError',
        message: expect.stringContaining("needs the credential 'crm-key', which is not stored"),
      },
    ]);
    expect(server.requests).toHaveLength(0);
  });

  test('an OAuth credential not stored: OAuthCredentialsMissingError', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const { runtime, store } = syncSetup({
      'solution.yaml': 'name: crm\n',
      'functions/fn.platform': fn(
        server.url,
        '  Authorization: { location: header, type: microsoft.oauth, value: graph }',
        'OAuthCredentialsMissingError',
      ),
    });
    await expect(runtime.execute('fn')).rejects.toMatchObject({
      code: 'CREDENTIAL_NOT_FOUND',
      title: 'Sign in to crm',
    });
    expect(store.rows('restFunctionErrors')).toMatchObject([{ error: 'OAuthCredentialsMissingError' }]);
  });

  test('no handler naming it: the run fails as before, with no alert and no handler texts', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const { runtime } = syncSetup({
      'functions/fn.platform': fn(
        server.url,
        '  x-api-key: { location: header, type: secret, value: crm-key }',
        'SomethingElse',
      ),
    });
    const alerts: unknown[] = [];
    runtime.on((e: ExecutionEvent) => {
      if (e.type === 'alert') alerts.push(e);
    });
    const failure = (await runtime.execute('fn').catch((e: unknown) => e)) as {
      code: string;
      title?: string;
    };
    expect(failure.code).toBe('CREDENTIAL_NOT_FOUND');
    expect(failure.title).toBeUndefined();
    expect(alerts).toEqual([]);
  });
});
