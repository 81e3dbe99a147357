/**
 * Every encoding a credential value can take in a trace, written independently of the
 * implementation: as written, percent- and form-encoded, JSON-escaped (and that encoded again),
 * and base64.
 */
export function encodings(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  return [
    ...new Set([
      value,
      encodeURIComponent(value),
      new URLSearchParams({ s: value }).toString().slice(2),
      json,
      encodeURIComponent(json),
      new URLSearchParams({ s: json }).toString().slice(2),
      Buffer.from(value).toString('base64').replace(/=+$/, ''),
    ]),
  ];
}
