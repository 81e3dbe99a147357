/** Temporary ids: created locally, not yet synced (conventions.md); recognisable by this prefix. */
export const TEMP_ID_PREFIX = '_tmp_';

export function isTempId(id: unknown): boolean {
  return typeof id === 'string' && id.startsWith(TEMP_ID_PREFIX);
}

/** Functions the platform adds to JSONata, with their JSONata signatures. */
export const CUSTOM_FUNCTIONS: ReadonlyArray<{
  name: string;
  implementation: (value: unknown) => unknown;
  signature: string;
}> = [
  { name: 'isTempId', implementation: isTempId, signature: '<j-:b>' },
  // A new random UUID (version 4) at each call: ids for records made in an expression.
  { name: 'uuid', implementation: () => globalThis.crypto.randomUUID(), signature: '<:s>' },
];

/**
 * JSONata's own functions (2.x): `$name` of any of these is known to every expression. A test
 * checks each against JSONata itself.
 */
export const JSONATA_FUNCTIONS: ReadonlySet<string> = new Set(
  `sum count max min average string substring substringBefore substringAfter lowercase uppercase
  length trim pad match contains replace split join formatNumber formatBase formatInteger
  parseInteger number floor ceil round abs sqrt power random boolean not map zip filter single
  reduce sift keys lookup append exists spread merge reverse each error assert type sort shuffle
  distinct base64encode base64decode encodeUrlComponent encodeUrl decodeUrlComponent decodeUrl eval
  toMillis fromMillis clone now millis`.split(/\s+/),
);
