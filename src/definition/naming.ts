/** Function file names: lowercase letters and digits, words joined by single hyphens. */
const FILE_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function isValidFileName(name: string): boolean {
  return FILE_NAME.test(name);
}

/** Letters NFKD does not take apart into a base letter and a mark. */
const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  Æ: 'Ae',
  ø: 'o',
  Ø: 'O',
  œ: 'oe',
  Œ: 'Oe',
  đ: 'd',
  Đ: 'D',
  ł: 'l',
  Ł: 'L',
  þ: 'th',
  Þ: 'Th',
};

/**
 * The closest valid file name: accents dropped from their letters (`créer` -> `creer`), lowercase,
 * every run of other characters turned into one hyphen.
 */
export function suggestFileName(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .replace(/[ßæÆøØœŒđĐłŁþÞ]/g, (c) => LETTERS[c] ?? c)
      .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
      // A run of capitals is one word: `getHTTPResponse` -> get-http-response, `retrieveAPage` -> retrieve-a-page.
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
  );
}

/**
 * The name of a GET function calling `url`: `rest-get-` and the last path segment that is no
 * {placeholder} (`.../tickets/{id}` -> rest-get-tickets; a `.json` ending dropped), or `fallback`
 * when the path has none. The url may hold placeholders anywhere (`{base}/tickets`), so it is cut
 * as text rather than parsed.
 */
export function getFunctionName(url: string, fallback: string): string {
  const path = url.replace(/[?#].*$/s, '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  const segments = path.split('/').filter((s) => s !== '' && !s.includes('{') && !s.includes('}'));
  const last = segments.at(-1);
  if (last === undefined) return fallback;
  let decoded = last;
  try {
    decoded = decodeURIComponent(last);
  } catch {
    // A stray '%' stays as written; suggestFileName drops it.
  }
  const words = suggestFileName(decoded.replace(/\.[A-Za-z0-9]+$/, ''))
    .slice(0, 40)
    .replace(/-+$/, '');
  return words === '' ? fallback : `rest-get-${words}`;
}

/** What is wrong with a `functionId` (spec 2.1), or undefined when it follows the rules. */
export function functionIdProblem(id: string): string | undefined {
  if (id.length < 2 || id.length > 50) return `must be 2 to 50 characters long (it has ${id.length})`;
  if (/\s/.test(id)) return 'must not contain spaces';
  if (!/^[A-Za-z]/.test(id)) return 'must start with a letter';
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return 'may contain only letters, digits, "-" and "_"';
  if (!/[A-Za-z0-9]$/.test(id)) return 'must not end with "-" or "_"';
  return undefined;
}
