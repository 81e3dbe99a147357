import * as yaml from 'yaml';

/** `yaml`, imported: the browser build bundles it (yaml-library.ts requires it, for Node's start-up). */
export const yamlLibrary: typeof import('yaml') = yaml;
