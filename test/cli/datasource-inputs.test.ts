import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

// A field-service solution as a new user wrote it: one datasource opened with an input (the job a
// screen shows), one reading that one, a REST datasource reading a local one, a static one.
const solution = (url: string) => ({
  'solution.yaml': 'name: field\n',
  'functions/rest-get-jobs.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/jobs
`,
  'functions/rest-get-job-notes.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/jobs/{jobId}/notes
parameters:
  jobId: { location: path, type: string, required: true }
`,
  'datasources/jobs.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: jobs
      function: rest-get-jobs
  query: SELECT id, '$.title' FROM [jobs] ORDER BY id
`,
  'datasources/next-job.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities: [jobs]
  noSync: true
  isDocument: true
  query: SELECT id, '$.title' FROM [jobs] ORDER BY id LIMIT 1
`,
  'datasources/job-notes.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: job-notes
      function: rest-get-job-notes
      functionParameters:
        jobId: =@ctx.jig.inputs.jobId
  query: SELECT id, '$.text' FROM [job-notes] WHERE '$.jobId' = @jobId ORDER BY id
  queryParameters:
    jobId: =@ctx.inputs.jobId
`,
  'datasources/note-count.platform': `type: datasource.static
options:
  data:
    - { id: count, notes: '=$count(@ctx.datasources.job-notes)' }
`,
  'datasources/next-job-notes.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_REST
  entities:
    - entity: next-job-notes
      function: rest-get-job-notes
      functionParameters:
        jobId: =@ctx.datasources.next-job.id
`,
  'datasources/statuses.platform': `type: datasource.static
options:
  data:
    - { id: open, title: Open }
`,
});

async function service() {
  return testServer((req, res) => {
    const jobId = /^\/jobs\/([^/]+)\/notes$/.exec(req.url)?.[1];
    if (jobId)
      json(res, 200, [
        { id: `${jobId}-n1`, jobId, text: `note on ${jobId}` },
        { id: 'x-n9', jobId: 'other', text: 'another job' },
      ]);
    else json(res, 200, [{ id: 'job-1', title: 'Fix the tap' }]);
  });
}

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('datasources opened with inputs, from the command line', () => {
  test('a plain sync skips the datasource whose function needs an input not given (and its readers), the others sync', async () => {
    const server = await service();
    const root = tempSolution(solution(server.url));
    const sync = await runCli(['sync'], { cwd: root });
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).toContain(
      'restfn: job-notes: not synced: reads input jobId; give it with --input jobId=VALUE\n',
    );
    expect(sync.stderr).toContain(
      'restfn: note-count: not synced: reads datasource job-notes, not synced (reads input jobId)\n',
    );
    // Singular for one: one page, one record, one row.
    expect(sync.stdout).toMatch(/^jobs: jobs <- rest-get-jobs: 1 page, 1 record, query returns 1 row \(/m);
    expect(sync.stdout).toMatch(/^next-job: no functions, query returns 1 row \(/m);
    expect(sync.stdout).toMatch(
      /^next-job-notes: next-job-notes <- rest-get-job-notes: 1 page, 2 records, gives 2 rows/m,
    );
    expect(sync.stdout).toMatch(/^statuses: no functions, gives 1 row \(/m);
    expect(sync.stdout).not.toMatch(/^job-notes|^note-count/m);
    expect(server.requests.map((r) => r.url)).toEqual(['/jobs', '/jobs/job-1/notes']);
  });

  test('named without its input, a datasource is INPUT_REQUIRED naming the input and --input; with it, it syncs', async () => {
    const server = await service();
    const root = tempSolution(solution(server.url));
    const named = await runCli(['sync', 'job-notes'], { cwd: root });
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(
      'restfn: error INPUT_REQUIRED: job-notes reads input jobId, not given: give it with --input jobId=VALUE',
    );
    // A reader of it, named, asks for the input too.
    const reader = await runCli(['sync', 'note-count'], { cwd: root });
    expect(reader.code).toBe(2);
    expect(reader.stderr).toContain('INPUT_REQUIRED: job-notes reads input jobId');
    expect(server.requests).toEqual([]);

    const given = await runCli(['sync', 'note-count', '--input', 'jobId=job-7'], { cwd: root });
    expect(given.code, given.stderr).toBe(0);
    expect(given.stdout).toMatch(
      /^job-notes: job-notes <- rest-get-job-notes: 1 page, 2 records, query returns 1 row/m,
    );
    expect(given.stdout).toMatch(/^note-count: no functions, gives 1 row/m);
  });

  test('restfn query gives any datasource as a screen sees it: static, REST, local with --input; the tables read-only', async () => {
    const server = await service();
    const root = tempSolution(solution(server.url));
    // Static and REST ones run before anything was synced (REST: nothing read locally).
    const statics = await runCli(['query', 'statuses'], { cwd: root });
    expect(statics.code, statics.stderr).toBe(0);
    expect(JSON.parse(statics.stdout)).toEqual([{ id: 'open', title: 'Open' }]);

    expect((await runCli(['sync', '--input', 'jobId=job-1'], { cwd: root })).code).toBe(0);
    const db = join(root, '.restfn', 'local.db');
    const before = digest(db);
    server.requests.length = 0;

    // REST, reading a local datasource first: its function called, nothing written.
    const rest = await runCli(['query', 'next-job-notes'], { cwd: root });
    expect(rest.code, rest.stderr).toBe(0);
    expect(JSON.parse(rest.stdout)).toEqual([
      { id: 'job-1-n1', jobId: 'job-1', text: 'note on job-1' },
      { id: 'x-n9', jobId: 'other', text: 'another job' },
    ]);
    expect(server.requests.map((r) => r.url)).toEqual(['/jobs/job-1/notes']);

    // Local: its query over the tables as synced, the input bound; no function called.
    const notes = await runCli(['query', 'job-notes', '--input', 'jobId=job-1'], { cwd: root });
    expect(notes.code, notes.stderr).toBe(0);
    expect(JSON.parse(notes.stdout)).toEqual([{ id: 'job-1-n1', text: 'note on job-1' }]);
    const counted = await runCli(['query', 'note-count', '--input', 'jobId=job-1'], { cwd: root });
    expect(JSON.parse(counted.stdout)).toEqual([{ id: 'count', notes: 1 }]);
    expect(server.requests).toHaveLength(1);

    // Without the input the rows are as without it: said, not silent.
    const bare = await runCli(['query', 'job-notes'], { cwd: root });
    expect(bare.code).toBe(0);
    expect(JSON.parse(bare.stdout)).toEqual([]);
    expect(bare.stderr).toContain(
      'restfn: warning: job-notes reads input jobId, not given: its rows are as without it (--input jobId=VALUE)',
    );
    expect(digest(db)).toBe(before);
  });

  test('restfn query of a REST datasource whose function needs an input not given is INPUT_REQUIRED', async () => {
    const server = await service();
    const files = solution(server.url);
    const root = tempSolution({
      ...files,
      'datasources/job-notes.platform': files['datasources/job-notes.platform'].replace(
        'DATA_PROVIDER_LOCAL',
        'DATA_PROVIDER_REST',
      ),
    });
    const missing = await runCli(['query', 'job-notes'], { cwd: root });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'restfn: error INPUT_REQUIRED: job-notes reads input jobId, not given: give it with --input jobId=VALUE',
    );
    expect(server.requests).toEqual([]);
    const given = await runCli(['query', 'job-notes', '--input', 'jobId=job-2'], { cwd: root });
    expect(given.code, given.stderr).toBe(0);
    expect(JSON.parse(given.stdout)).toEqual([{ id: 'job-2-n1', text: 'note on job-2' }]);
  });
});
