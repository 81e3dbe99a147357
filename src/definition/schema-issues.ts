import type { z } from 'zod';
import { type Diagnostic, diagnostic } from './diagnostic.js';
import { closest, meantIn, meantText } from './suggest.js';
import { suggestionAt } from './suggestion.js';
import type { PropertyPath, YamlFile } from './yaml-file.js';

/**
 * Turns zod issues into findings that point into the file. Messages name the key, what is allowed,
 * and the closest allowed value; they never echo the value itself, which could be a credential.
 */
export function schemaDiagnostics(
  file: YamlFile,
  data: unknown,
  issues: readonly z.core.$ZodIssue[],
): Diagnostic[] {
  return issues.flatMap((issue) => fromIssue(file, data, issue));
}

function fromIssue(file: YamlFile, data: unknown, issue: z.core.$ZodIssue): Diagnostic[] {
  const path = issue.path as PropertyPath;
  const name = describePath(path);
  const actual = valueAt(data, path);

  switch (issue.code) {
    case 'unrecognized_keys': {
      const messages = issue.message.split('\n');
      return issue.keys.map((key, i) => {
        const near = messages[i] && meantIn(messages[i]);
        return diagnostic(
          'UNKNOWN_KEY',
          `${messages[i] ?? `unknown key '${key}'`} in ${name || 'the file'}; remove it or fix its spelling`,
          file.locate([...path, key], { key: true }),
          near ? suggestionAt(file, [...path, key], { word: key, text: near, key: true }) : undefined,
        );
      });
    }
    case 'invalid_type':
    case 'invalid_value':
      if (actual === undefined) {
        return [
          diagnostic(
            'MISSING_KEY',
            `missing required key '${String(path.at(-1))}'${parentName(path)}; add it (${expectation(issue)})`,
            file.locate(path),
          ),
        ];
      }
      if (issue.code === 'invalid_type') {
        return [
          diagnostic(
            'INVALID_VALUE',
            `${name} must be ${article(issue.expected)} (got ${typeName(actual)})`,
            file.locate(path),
          ),
        ];
      }
      return [
        diagnostic(
          'INVALID_VALUE',
          `${name} must be ${expectation(issue)}${meantText(hint(actual, issue.values))}`,
          file.locate(path),
          meant(file, path, actual, issue.values),
        ),
      ];
    case 'invalid_union': {
      if ('discriminator' in issue && issue.discriminator) {
        const options = ((issue as { options?: unknown[] }).options ?? []).map(String);
        if (actual === undefined) {
          return [
            diagnostic(
              'MISSING_KEY',
              `missing required key '${issue.discriminator}'${parentName(path)}; add it (one of ${options.join(', ')})`,
              file.locate(path),
            ),
          ];
        }
        return [
          diagnostic(
            'INVALID_VALUE',
            `${name} must be one of ${options.join(', ')}${meantText(hint(actual, options))}`,
            file.locate(path),
            meant(file, path, actual, options),
          ),
        ];
      }
      if (actual === undefined) {
        return [
          diagnostic(
            'MISSING_KEY',
            `missing required key '${String(path.at(-1))}'${parentName(path)}; add it (${unionExpectation(issue.errors)})`,
            file.locate(path),
          ),
        ];
      }
      return [
        diagnostic(
          'INVALID_VALUE',
          `${name} must be ${unionExpectation(issue.errors)} (got ${typeName(actual)})`,
          file.locate(path),
        ),
      ];
    }
    case 'too_small':
    case 'too_big': {
      const atLeast = issue.code === 'too_small';
      const bound = atLeast ? issue.minimum : issue.maximum;
      const limit = `${atLeast ? 'at least' : 'at most'} ${bound}`;
      const what =
        issue.origin === 'array'
          ? `have ${limit} ${bound === 1 ? 'entry' : 'entries'}`
          : issue.origin === 'string'
            ? `have ${limit} characters`
            : `be ${atLeast ? '>=' : '<='} ${bound}`;
      return [diagnostic('INVALID_VALUE', `${name} must ${what}`, file.locate(path))];
    }
    default:
      return [diagnostic('INVALID_VALUE', `${name}: ${issue.message}`, file.locate(path))];
  }
}

/** What a missing or wrong value should be: a type, or the allowed values. */
function expectation(issue: z.core.$ZodIssueInvalidType | z.core.$ZodIssueInvalidValue): string {
  if (issue.code === 'invalid_type') return issue.expected;
  const allowed = issue.values.map(String);
  return allowed.length === 1 ? `'${allowed[0]}'` : `one of ${allowed.join(', ')}`;
}

/** The allowed value a string is close to, when there are several ("did you mean"). */
function hint(actual: unknown, allowed: readonly unknown[]): string | undefined {
  return typeof actual === 'string' && allowed.length > 1 ? closest(actual, allowed.map(String)) : undefined;
}

/** The hint as an edit of the value (a quick fix): the whole string is the misspelt word. */
function meant(file: YamlFile, path: PropertyPath, actual: unknown, allowed: readonly unknown[]) {
  const near = hint(actual, allowed);
  return near ? suggestionAt(file, path, { word: actual as string, text: near }) : undefined;
}

/** `parameters.id.location`, with list indexes as `[0]`. */
export function describePath(path: PropertyPath): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

function parentName(path: PropertyPath): string {
  const parent = describePath(path.slice(0, -1));
  return parent ? ` in ${parent}` : '';
}

export function valueAt(data: unknown, path: PropertyPath): unknown {
  let value = data;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  return `a ${typeof value}`;
}

function article(expected: string): string {
  if (expected === 'object') return 'a map';
  if (expected === 'array') return 'a list';
  return `a ${expected}`;
}

/** "a boolean or a string": the plain types each branch of a union wanted. */
function unionExpectation(branches: ReadonlyArray<ReadonlyArray<z.core.$ZodIssue>>): string {
  const wanted = new Set<string>();
  for (const branch of branches) {
    for (const issue of branch) {
      if (issue.code === 'invalid_type' && issue.path.length === 0) wanted.add(article(issue.expected));
    }
  }
  return wanted.size > 0 ? [...wanted].join(' or ') : 'a valid value';
}
