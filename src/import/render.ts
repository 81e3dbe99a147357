import { createRequire } from 'node:module';
import { printable } from '../errors/printable.js';
import type { ImportedOperation, ImportedParameter } from './model.js';

const { Document, isMap, isPair, isScalar } = createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** Where a function file came from, recorded in the comment at its top. */
export interface Origin {
  /** The description's path, relative to the solution folder, with `/`. */
  readonly source: string;
  /** `OpenAPI 3.0.4, Swagger Petstore` */
  readonly description: string;
  /** `getPetById (GET /pet/{petId})` */
  readonly operation: string;
  /** `YYYY-MM-DD` */
  readonly date: string;
}

const MARKER = 'Imported by restfn import';
const LOCATION_ORDER = { path: 0, query: 1, header: 2, body: 3 } as const;

/**
 * The function file for one operation: YAML written by the yaml library (so no value from the
 * description can add keys or comments), under a comment recording where it came from.
 */
export function renderFunction(op: ImportedOperation, origin: Origin): string {
  const parameters: Record<string, Record<string, unknown>> = {};
  const comments = new Map<string, string>();
  const ordered = [...op.parameters].sort((a, b) => LOCATION_ORDER[a.location] - LOCATION_ORDER[b.location]);
  for (const p of ordered) {
    parameters[p.name] = definitionOf(p);
    const comment = [
      p.comment,
      p.property && p.property !== p.name ? `the body's '${p.property}'` : undefined,
    ]
      .filter(Boolean)
      .join('; ');
    if (comment) comments.set(p.name, comment);
  }
  for (const c of op.credentials) {
    parameters[c.parameter.name] = {
      location: c.parameter.location,
      type: c.parameter.type,
      required: true,
      value: c.key,
    };
    comments.set(
      c.parameter.name,
      `credential key '${c.key}' (${c.scheme}), not the secret: store it with 'restfn credentials set ${c.key} ${c.setArguments.slice(0, 2).join(' ')} ...'`,
    );
  }
  const definition: Record<string, unknown> = {
    provider: 'DATA_PROVIDER_REST',
    method: op.method,
    url: op.url,
    format: op.format,
  };
  if (Object.keys(parameters).length > 0) definition.parameters = parameters;
  if (op.inputTransform !== undefined) definition.inputTransform = op.inputTransform;

  const doc = new Document(definition);
  const header = [
    `${MARKER}; a later import of the same source compares with this file.`,
    `source: ${origin.source}`,
    `description: ${origin.description}`,
    `operation: ${origin.operation}`,
    ...(op.summary ? [`summary: ${op.summary}`] : []),
    `date: ${origin.date}`,
    ...op.notes.map((n) => `note: ${n}`),
  ];
  doc.commentBefore = header.map((line) => ` ${oneLine(line)}`).join('\n');
  const node = doc.get('parameters', true);
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      const comment = comments.get(String(pair.key.value));
      if (comment) pair.key.commentBefore = ` ${oneLine(comment)}`;
    }
  }
  return doc.toString({ lineWidth: 0 });
}

function definitionOf(p: ImportedParameter): Record<string, unknown> {
  const d: Record<string, unknown> = { location: p.location };
  if (p.type !== undefined) d.type = p.type;
  if (p.style !== undefined) d.style = p.style;
  if (p.explode !== undefined) d.explode = p.explode;
  d.required = p.required;
  if (p.value !== undefined) d.value = p.value;
  return d;
}

/** Line breaks and control characters (from the description) escaped: a comment stays one line. */
export function oneLine(text: string): string {
  return printable(text);
}

/** The origin recorded at the top of a file `restfn import` wrote, or undefined for any other file. */
export function readOrigin(text: string): Partial<Origin> | undefined {
  const lines = text.split(/\r?\n/);
  if (!lines[0]?.startsWith(`# ${MARKER}`)) return undefined;
  const origin: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    if (!line.startsWith('#')) break;
    const match = /^# (source|description|operation|date): (.*)$/.exec(line);
    if (match && !(match[1]! in origin)) origin[match[1]!] = match[2]!;
  }
  return origin;
}

/** The text without its import date, to compare two imports of the same operation. */
export function withoutDate(text: string): string {
  return text.replace(/^# date: .*\n/m, '');
}
