/**
 * `Retry-After` (RFC 9110 10.2.3): delay-seconds or an HTTP-date. Parsed strictly: anything else
 * (negative, fractional, words, other date formats) is `undefined`, and the caller falls back to its
 * default delay. The result is milliseconds from `now`, never negative.
 */
const SECONDS = /^\d{1,10}$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// The three forms RFC 9110 5.6.7 requires recipients to accept, each as (day, month, year, time):
// IMF-fixdate, the form servers must send: "Sun, 06 Nov 1994 08:49:37 GMT".
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
// The obsolete RFC 850 form: "Sunday, 06-Nov-94 08:49:37 GMT".
const RFC_850 = new RegExp(
  `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`,
);
// ANSI C's asctime(): "Sun Nov  6 08:49:37 1994" (the day padded with a space).
const ASCTIME = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (SECONDS.test(text)) return Number(text) * 1000;
  const at = httpDate(text, now);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** An HTTP-date in any of its three forms as epoch milliseconds; undefined when it is none. */
function httpDate(text: string, now: number): number | undefined {
  const parts = dateParts(text, now);
  if (!parts) return undefined;
  const { day, month, year, time } = parts;
  const [hh, mm, ss] = time.map(Number) as [number, number, number];
  const at = Date.UTC(year, MONTHS.indexOf(month), day, hh, mm, ss);
  // Reject impossible dates that Date.UTC would silently roll over (31 Feb, 25:00, ...).
  const check = new Date(at);
  const valid =
    check.getUTCFullYear() === year &&
    check.getUTCDate() === day &&
    check.getUTCHours() === hh &&
    check.getUTCMinutes() === mm &&
    check.getUTCSeconds() === ss;
  return valid ? at : undefined;
}

/** The day, month name, year and time fields of whichever form `text` is written in. */
function dateParts(
  text: string,
  now: number,
): { day: number; month: string; year: number; time: string[] } | undefined {
  const imf = IMF_FIXDATE.exec(text);
  if (imf) return { day: Number(imf[1]), month: imf[2]!, year: Number(imf[3]), time: imf.slice(4, 7) };
  const rfc850 = RFC_850.exec(text);
  if (rfc850) {
    const year = twoDigitYear(Number(rfc850[3]), now);
    return { day: Number(rfc850[1]), month: rfc850[2]!, year, time: rfc850.slice(4, 7) };
  }
  const asctime = ASCTIME.exec(text);
  if (asctime)
    return {
      day: Number(asctime[2]),
      month: asctime[1]!,
      year: Number(asctime[6]),
      time: asctime.slice(3, 6),
    };
  return undefined;
}

/**
 * RFC 9110 5.6.7: a two-digit year that would put the date more than 50 years in the future means
 * the most recent past year with those last two digits.
 */
function twoDigitYear(yy: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  const year = Math.floor(current / 100) * 100 + yy;
  return year > current + 50 ? year - 100 : year;
}
