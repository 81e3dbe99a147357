/**
 * Text from a service or a file, made safe for one terminal line: control characters (line breaks,
 * escape sequences) are shown as `\uXXXX`, so an answer cannot forge output lines or move the cursor.
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
