import { describe, expect, it } from 'vitest';
import { testServer } from '../helpers/http-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

const MB = 1024 * 1024;

describe("a solution's settings.http.maxResponseMb on the platform", () => {
  it('may lower the response limit, not raise it above the platform limit (50 MB)', async () => {
    // Declares the size asked for (?mb=N) and sends a few bytes: the limit is judged on the header.
    const service = await testServer((req, res) => {
      const mb = Number(new URL(req.url, 'http://x').searchParams.get('mb'));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(mb * MB) });
      res.end('{}');
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    const fn = `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/big\nparameters:\n  mb: { location: query, type: number, required: true }\n`;
    const run = async (solution: string, maxResponseMb: number, mb: number) => {
      const published = await platform.api('PUT', `/api/v1/solutions/${solution}`, {
        token: admin,
        body: {
          files: {
            'solution.yaml': `name: ${solution}\nsettings:\n  http:\n    maxResponseMb: ${maxResponseMb}\n`,
            'functions/rest-get-big.platform': fn,
          },
        },
      });
      expect(published.status).toBe(201);
      return platform.api('POST', `/api/v1/solutions/${solution}/functions/rest-get-big/execute`, {
        token: admin,
        body: { parameters: { mb } },
      });
    };

    const raised = await run('greedy', 1000, 60);
    expect(raised.body).toMatchObject({ status: 'error', code: 'RESPONSE_TOO_LARGE' });
    expect(raised.body.message).toContain(`over the limit of ${50 * MB} bytes`);

    const lowered = await run('modest', 1, 2);
    expect(lowered.body).toMatchObject({ status: 'error', code: 'RESPONSE_TOO_LARGE' });
    expect(lowered.body.message).toContain(`over the limit of ${MB} bytes`);
  });
});
