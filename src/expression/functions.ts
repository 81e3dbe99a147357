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
}> = [{ name: 'isTempId', implementation: isTempId, signature: '<j-:b>' }];
