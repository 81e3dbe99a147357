import { describe, expect, test } from 'vitest';
import { functionIdProblem, isValidFileName, suggestFileName } from '../../src/definition/naming.js';
import { closest } from '../../src/definition/suggest.js';

describe('function file names', () => {
  test.each([
    ['rest-get-customers', true],
    ['rest2', true],
    ['Rest-Get', false],
    ['rest_get', false],
    ['rest--get', false],
    ['-rest', false],
    ['rest get', false],
    ['rëst', false],
  ])('%s valid: %s', (name, valid) => {
    expect(isValidFileName(name)).toBe(valid);
  });

  test.each([
    ['Rest Get Customers', 'rest-get-customers'],
    ['restGetCustomers', 'rest-get-customers'],
    ['rest_get__customers!', 'rest-get-customers'],
    ['--x--', 'x'],
  ])('%s is suggested as %s', (name, suggestion) => {
    expect(suggestFileName(name)).toBe(suggestion);
    expect(isValidFileName(suggestFileName(name))).toBe(true);
  });
});

describe('functionId rules (spec 2.1)', () => {
  test.each([
    ['ab', undefined],
    ['getCustomers_v2', undefined],
    ['rest-get-x', undefined],
    ['a'.repeat(50), undefined],
    ['a', 'must be 2 to 50 characters long (it has 1)'],
    ['a'.repeat(51), 'must be 2 to 50 characters long (it has 51)'],
    ['1abc', 'must start with a letter'],
    ['get customers', 'must not contain spaces'],
    ['get.customers', 'may contain only letters, digits, "-" and "_"'],
    ['getCustomers_', 'must not end with "-" or "_"'],
    ['getCustomers-', 'must not end with "-" or "_"'],
  ])('%s', (id, problem) => {
    expect(functionIdProblem(id)).toBe(problem);
  });
});

describe('did you mean', () => {
  test('suggests close keys and nothing for far ones', () => {
    expect(closest('mehtod', ['method', 'url', 'format'])).toBe('method');
    expect(closest('outputTransfrom', ['inputTransform', 'outputTransform'])).toBe('outputTransform');
    expect(closest('zzzzzz', ['method', 'url'])).toBeUndefined();
  });
});
