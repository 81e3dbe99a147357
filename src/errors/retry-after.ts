/**
 * `Retry-After` (RFC 9110 10.2.3): delay-seconds or an HTTP-date. Parsed strictly: anything else
 * (negative, fractional, words, other date formats) is `undefined`, and the caller falls back to its
 * default delay. The result is milliseconds from `now`, never negative.
 */
const SECONDS = /^\d{1,10}$/;
// IMF-fixdate, the form servers must send: "Sun, 06 Nov 1994 08:49:37 GMT".
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (SECONDS.test(text)) return Number(text) * 1000;
  const m = IMF_FIXDATE.exec(text);
  if (!m) return undefined;
  const [, , day, month, year, hh, mm, ss] = m;
  const at = Date.UTC(Number(year), MONTHS.indexOf(month!), Number(day), Number(hh), Number(mm), Number(ss));
  // Reject impossible dates that Date.UTC would silently roll over (31 Feb, 25:00, ...).
  const check = new Date(at);
  if (
    check.getUTCDate() !== Number(day) ||
    check.getUTCHours() !== Number(hh) ||
    check.getUTCMinutes() !== Number(mm) ||
    check.getUTCSeconds() !== Number(ss)
  ) {
    return undefined;
  }
  return Math.max(0, at - now);
}
