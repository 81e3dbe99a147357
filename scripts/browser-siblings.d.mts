import type { Plugin } from 'esbuild';

export const browserSiblings: Plugin;
export const BUFFER_SHIM: string;
