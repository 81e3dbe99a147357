import { describe, expect, it } from 'vitest';
import {
  changeTargets,
  hostsOf,
  MAX_TARGETS,
  MAX_TARGETS_PER_SOLUTION,
  parseTargets,
} from '../../src/platform/store/allowed-targets.js';

/** `count` hosts 10.x.y.z for `solution`. */
function hosts(count: number, base = 0): string[] {
  return Array.from(
    { length: count },
    (_, i) => `10.${(base + i) >> 16}.${((base + i) >> 8) & 0xff}.${(base + i) & 0xff}`,
  );
}

describe('the API-allowed targets list (pure)', () => {
  it('a solution named like an object property has no hosts until given some', () => {
    const list = parseTargets('{"crm":["10.0.0.5"]}');
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'])
      expect(hostsOf(list, name), name).toEqual([]);
    const { targets } = changeTargets(list, 'constructor', '10.0.0.6', true);
    expect(hostsOf(targets, 'constructor')).toEqual(['10.0.0.6']);
    expect(hostsOf(targets, 'crm')).toEqual(['10.0.0.5']);
  });

  it('a row of another shape allows nothing it does not spell out', () => {
    expect(parseTargets('not json')).toEqual({});
    expect(parseTargets('["10.0.0.5"]')).toEqual({});
    expect(parseTargets('{"crm":"10.0.0.5","hr":["10.0.0.6",7,null]}')).toEqual({ hr: ['10.0.0.6'] });
  });

  it('at most MAX_TARGETS_PER_SOLUTION per solution and MAX_TARGETS in all; removing is always allowed', () => {
    const full = { crm: hosts(MAX_TARGETS_PER_SOLUTION) };
    expect(() => changeTargets(full, 'crm', '10.9.9.9', true)).toThrow(
      expect.objectContaining({ code: 'TARGET_LIMIT' }),
    );
    expect(changeTargets(full, 'crm', hosts(1)[0]!, true).changed).toBe(false);
    expect(hostsOf(changeTargets(full, 'crm', hosts(1)[0]!, false).targets, 'crm')).toHaveLength(
      MAX_TARGETS_PER_SOLUTION - 1,
    );
    const platform: Record<string, string[]> = {};
    for (let s = 0; s < MAX_TARGETS / MAX_TARGETS_PER_SOLUTION; s++)
      platform[`s${s}`] = hosts(MAX_TARGETS_PER_SOLUTION, s * MAX_TARGETS_PER_SOLUTION);
    expect(() => changeTargets(platform, 'new', '10.9.9.9', true)).toThrow(
      /the platform has 1000 allowed targets/,
    );
  });
});
