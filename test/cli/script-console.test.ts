import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

describe('expression scripts: console and date-fns', () => {
  test("console.* goes to the --verbose trace (never stdout, never an error), bounded; date-fns imports as the platform's", async () => {
    const server = await testServer((_, res) => json(res, 200, { due: '2026-03-05T10:00:00Z', tags: ['a'] }));
    const root = tempSolution({
      'scripts/expressions/dates.js': `import { format, addDays } from 'date-fns';
import { parseISO } from 'date-fns/parseISO';
console.info('dates loaded');
export function nextDay(iso) {
  console.log('nextDay of', iso, { n: 1 });
  return format(addDays(parseISO(iso), 1), 'yyyy-MM-dd');
}
export function chatty() {
  for (let i = 0; i < 1000; i++) console.warn('line ' + i);
  return 'done';
}
`,
      'functions/rest-get-due.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/due
outputTransform: '{ "next": $dates.nextDay(due), "chatty": $dates.chatty() }'
`,
    });
    const quiet = await runCli(['run', 'rest-get-due'], { cwd: root });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(JSON.parse(quiet.stdout)).toEqual({ next: '2026-03-06', chatty: 'done' });
    expect(quiet.stderr).toBe('');

    const verbose = await runCli(['run', 'rest-get-due', '--verbose'], { cwd: root });
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(JSON.parse(verbose.stdout)).toEqual({ next: '2026-03-06', chatty: 'done' });
    expect(verbose.stderr).toContain('# dates console.info: dates loaded');
    expect(verbose.stderr).toContain('# dates.nextDay console.log: nextDay of 2026-03-05T10:00:00Z {"n":1}');
    const kept = verbose.stderr.split('\n').filter((l) => l.startsWith('# dates.chatty console.warn: line '));
    expect(kept).toHaveLength(100);
    expect(verbose.stderr).toContain('(900 more console lines not kept: at most 100 a call)');
    // The package's notice that its CDN files moved is restfn's loading, not the author's: not shown.
    expect(verbose.stderr).not.toContain('CDN');
  });
});
