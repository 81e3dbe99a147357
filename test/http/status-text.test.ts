import { STATUS_CODES } from 'node:http';
import { describe, expect, it } from 'vitest';
import { statusText } from '../../src/http/status-text.js';

// The transport's table of reason phrases stands for node:http's (which it no longer loads at
// start-up): the two must name every status alike.
describe('statusText', () => {
  it("names every status as node:http's STATUS_CODES does", () => {
    for (let status = 100; status < 600; status++)
      expect(statusText(status)).toBe(STATUS_CODES[status] ?? '');
  });
});
