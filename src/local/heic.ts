/**
 * The HEIC decoder (heic-convert, ~9 MB of WebAssembly with its dependencies) is an optional peer of
 * restfn (issue 38): most installations never convert a photo, so it is not installed for everyone.
 * Loaded on first use; when it is not installed, a coded error says how to install it.
 */
import { ConversionError } from './errors.js';

export type HeicConvert = (options: {
  buffer: Buffer;
  format: 'JPEG' | 'PNG';
  quality?: number;
}) => Promise<ArrayBuffer>;

export const HEIC_PACKAGE = 'heic-convert';

/** The decoder, or CONVERSION_UNAVAILABLE naming the install command when the package is not there. */
export async function loadHeicConvert(
  property: string,
  load: () => Promise<{ default: unknown }> = () => import('heic-convert'),
): Promise<HeicConvert> {
  try {
    return (await load()).default as HeicConvert;
  } catch (error) {
    if (!isMissing(error, HEIC_PACKAGE)) throw error;
    throw new ConversionError(
      'CONVERSION_UNAVAILABLE',
      `property '${property}' holds a HEIC image and convertHeicToJpg is on, but the HEIC decoder is not installed: run \`npm install ${HEIC_PACKAGE}\` beside restfn (it is optional, ~9 MB)`,
    );
  }
}

/** Node could not find the package itself (not a file it requires: that is a broken install). */
export function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    (message.includes(`'${name}'`) || message.includes(`"${name}"`))
  );
}
