import { credentialKind } from '../credential-params.js';
import type { FunctionRule } from './reporter.js';

/** A value parameter needs a location; credentials default to the headers (spec 5 rule 1). */
export const parameterLocation: FunctionRule = (file, r) => {
  for (const [name, parameter] of Object.entries(file.definition.parameters ?? {})) {
    if (parameter.location === undefined && credentialKind(name, parameter) === undefined) {
      r.report(
        'MISSING_KEY',
        `parameter '${name}' has no location; add 'location:' header, path, query, body or output`,
        ['parameters', name],
        { key: true },
      );
    }
  }
};

/** Older keys still run; each warning shows the current form. */
export const deprecatedKeys: FunctionRule = (file, r) => {
  const d = file.definition;
  if (d.errorTransform !== undefined) {
    r.report(
      'DEPRECATED_KEY',
      "errorTransform is the older form of error shaping: on a failure its result is the function's output. Use the 'error' list of handlers (title, description, details) instead",
      ['errorTransform'],
      { key: true },
    );
  }
  for (const [i, handler] of (d.error ?? []).entries()) {
    if (handler.table === undefined && handler.transform === undefined) continue;
    const table = handler.table ?? '{entity}_error';
    const write =
      handler.transform === undefined
        ? `; without 'transform' nothing is written`
        : `; write it as operations: [{ type: operation.upsert-merge, table: ${table}, records: <the transform> }]`;
    r.report(
      'DEPRECATED_KEY',
      `'table'/'transform' on an error handler are the older form of an error-table write${write}`,
      ['error', i, handler.transform === undefined ? 'table' : 'transform'],
      { key: true },
    );
  }
};
