import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
// @ts-expect-error: a plain JavaScript module of the demo (examples/ is not compiled)
import { shellLine, shellQuote } from '../../examples/demo/shell-quote.mjs';

const run = promisify(execFile);

// The demo echoes the commands it runs (issue 38): the echoed line, pasted into a shell, must give
// the same arguments. Checked by sh itself: the line runs a program that prints its argv.
describe('the demo echoes commands as a shell reads them back', () => {
  const cases: string[][] = [
    ['run', 'rest-update-customer', '-p', 'id=c-007', '-p', 'name=Ada Lovelace', '-p', 'region=eu'],
    [
      'query',
      "SELECT json_extract(data, '$.region') AS region FROM [customers] GROUP BY 1",
      '--db',
      'a b/demo.db',
    ],
    ['run', 'x', '-p', 'note=it\'s $HOME `date` "quoted" *', '-p', 'empty=', ''],
    ['run', 'x', '-p', 'multi=line one\nline two', '-p', 'tab=\there', '-p', 'semi=a;b|c&d'],
  ];
  for (const args of cases) {
    test(args.join(' ').slice(0, 50), async () => {
      const line = `${JSON.stringify(process.execPath)} -e 'console.log(JSON.stringify(process.argv.slice(1)))' -- ${shellLine(args)}`;
      const { stdout } = await run('sh', ['-c', line]);
      expect(JSON.parse(stdout)).toEqual(args);
    });
  }

  test('safe arguments are left bare, so the line reads as typed', () => {
    expect(
      shellLine(['restfn', 'run', 'rest-get-customer', '-p', 'id=c-007', '--db', '.restfn/demo.db']),
    ).toBe('restfn run rest-get-customer -p id=c-007 --db .restfn/demo.db');
    expect(shellQuote('name=Ada Lovelace')).toBe("'name=Ada Lovelace'");
    expect(shellQuote('')).toBe("''");
  });
});
