/**
 * The kinds of file in a solution, without their schemas (schema/index.ts pairs each with one and
 * the compiler checks that the two lists agree): the CLI names them in --help without loading zod.
 */
export const FILE_KINDS = ['function', 'datasource', 'action', 'solution'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

/** The extension of definition files. */
export const EXTENSION = '.platform';
