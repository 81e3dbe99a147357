import { expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempSolution } from '../helpers/temp-solution.js';

// `restfn validate --format json`: a did-you-mean also comes as data (an editor's quick fix, a
// script's), the text output unchanged.
test('a finding with a did-you-mean carries it as `suggestion`: the misspelt word and what was meant', async () => {
  const root = tempSolution({
    'functions/list.platform':
      'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://crm.example.com/c\noutputTransform: =$uppercse($.name)\n',
  });
  const json = await runCli(['validate', '--format', 'json'], { cwd: root });
  expect(JSON.parse(json.stdout).diagnostics).toEqual([
    {
      file: 'functions/list.platform',
      line: 4,
      col: 19,
      severity: 'error',
      code: 'UNKNOWN_NAME',
      message:
        'unknown function $uppercse (did you mean $uppercase?); script functions are called as $<module>.<function>()',
      // `uppercse`, after the `$` the finding points at.
      suggestion: { line: 4, col: 20, length: 8, text: 'uppercase' },
    },
  ]);
  const text = await runCli(['validate'], { cwd: root });
  expect(text.stdout).toBe(
    'functions/list.platform:4:19: error UNKNOWN_NAME: unknown function $uppercse (did you mean $uppercase?); script functions are called as $<module>.<function>()\n1 file checked: 1 error, 0 warnings\n',
  );
});
