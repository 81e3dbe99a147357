/**
 * date-fns's prebuilt bundle (`cdn.min.js`) for scripts in the browser client: the build copies
 * the text into its own chunk (`restfn:date-fns-text`, see scripts/build-browser.mjs), fetched only
 * when a solution's script first loads it.
 */
export async function dateFnsSource(): Promise<string> {
  // @ts-expect-error: a module of the browser build only (its text, by the build's plugin)
  const text: { default: string } = await import('restfn:date-fns-text');
  return text.default;
}
