/** A text, or a map of language to text: picks the user's locale, then its language, then the first. */
export function localize(
  text: string | Readonly<Record<string, string>> | undefined,
  locale: string,
): string | undefined {
  if (text === undefined || typeof text === 'string') return text;
  const exact = text[locale];
  if (exact !== undefined) return exact;
  const language = locale.split(/[-_]/)[0]!;
  const byLanguage =
    text[language] ?? Object.entries(text).find(([k]) => k.split(/[-_]/)[0] === language)?.[1];
  return byLanguage ?? Object.values(text)[0];
}
