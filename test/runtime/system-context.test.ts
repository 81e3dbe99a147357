import { afterEach, describe, expect, test } from 'vitest';
import { systemContext } from '../../src/runtime/system-context.js';
import { recordingClock } from '../helpers/clock.js';

const RealFormat = Intl.DateTimeFormat;
afterEach(() => {
  Intl.DateTimeFormat = RealFormat;
});

/** Counts the time zone formatters made from now on (each loads ICU's zone data). */
function countFormats(): { made: number } {
  const count = { made: 0 };
  const counted = (target: typeof RealFormat, args: unknown[]) => {
    count.made++;
    return Reflect.construct(target, args);
  };
  Intl.DateTimeFormat = new Proxy(RealFormat, { apply: counted, construct: counted });
  return count;
}

describe('@ctx.system', () => {
  test('the time zone is worked out when first read, as of the instant the context was made', () => {
    const formats = countFormats();
    // 21 Nov 2026: winter in Europe, Chatham Islands on summer time (+1345).
    const clock = recordingClock(Date.UTC(2026, 10, 21));
    const system = systemContext({ timezone: 'Pacific/Chatham', source: 'app' }, {}, clock);
    // Making a context loads no time zone data (a run that never reads it spares ICU's).
    expect(formats.made).toBe(0);
    clock.advance(180 * 24 * 3_600_000);
    expect(system.timezone).toEqual({ name: 'Pacific/Chatham', offset: '+1345' });
    expect(formats.made).toBeGreaterThan(0);
    expect(system.timezone).toBe(system.timezone);
  });

  test("read, copied or serialised, it is plain data with the caller's own fields first", () => {
    const clock = recordingClock(Date.UTC(2026, 10, 21));
    const system = systemContext({ source: 'app', timezone: 'Europe/Zurich' }, {}, clock);
    const expected = {
      source: 'app',
      timezone: { name: 'Europe/Zurich', offset: '+0100' },
      locale: 'en',
      isOffline: false,
      isOnline: true,
    };
    expect(Object.keys(system)).toEqual(Object.keys(expected));
    expect({ ...system }).toEqual(expected);
    expect(JSON.parse(JSON.stringify(system))).toEqual(expected);
    expect(structuredClone(system)).toEqual(expected);
    // An invalid zone is not used: the fallback's (then the process's) stands.
    const fallback = systemContext({ timezone: 'Mars/Olympus' }, { timezone: 'Asia/Tokyo' }, clock);
    expect(fallback.timezone).toEqual({ name: 'Asia/Tokyo', offset: '+0900' });
  });
});
