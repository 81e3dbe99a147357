import { ConversionError } from './errors.js';
import type { HeicConvert } from './heic.js';

// The browser build: the HEIC decoder (heic-convert, ~9 MB of WebAssembly) is not bundled.

export type { HeicConvert } from './heic.js';

export const HEIC_PACKAGE = 'heic-convert';

export async function loadHeicConvert(property: string): Promise<HeicConvert> {
  throw new ConversionError(
    'CONVERSION_UNAVAILABLE',
    `property '${property}' holds a HEIC image and convertHeicToJpg is on, but the browser client has no HEIC decoder: convert the photo before the action (a canvas can draw it as JPEG), or run the action on Node`,
  );
}

export function isMissing(_error: unknown, _name: string): boolean {
  return false;
}
