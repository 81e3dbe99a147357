import { credentialKind } from '../credential-params.js';
import { closest } from '../suggest.js';
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

/** The types restfn checks and converts values to (runtime/parameters.ts `coerce`), and `secret`. */
export const KNOWN_TYPES = [
  'string',
  'number',
  'int',
  'integer',
  'boolean',
  'array',
  'object',
  'file',
  'image',
  'secret',
];
/** Names other languages give these types. */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  bool: 'boolean',
  float: 'number',
  double: 'number',
  decimal: 'number',
  long: 'integer',
  str: 'string',
  text: 'string',
  list: 'array',
  map: 'object',
  dict: 'object',
};

/**
 * A type restfn does not know passes values through unchecked (`image` and other screen types
 * do). One close to a known type is a typo whose values would go out as text: said, with the fix.
 */
export const parameterType: FunctionRule = (file, r) => {
  const d = file.definition;
  const groups = [
    ['parameters', d.parameters],
    ['continuation', d.continuation?.parameters],
  ] as const;
  for (const [where, parameters] of groups) {
    for (const [name, parameter] of Object.entries(parameters ?? {})) {
      const type = parameter.type;
      if (type === undefined || KNOWN_TYPES.includes(type) || credentialKind(name, parameter)) continue;
      const meant = TYPE_ALIASES[type.toLowerCase()] ?? closest(type, KNOWN_TYPES);
      if (meant === undefined) continue;
      const path =
        where === 'parameters' ? ['parameters', name, 'type'] : ['continuation', 'parameters', name, 'type'];
      r.report(
        'PARAMETER_TYPE_UNKNOWN',
        `parameter '${name}' has type '${type}', which restfn does not know (did you mean '${meant}'?): its values would go as given, neither checked nor converted`,
        path,
        { meant: { word: type, text: meant } },
      );
    }
  }
};

/** `style` and `explode` say how a query value is written: elsewhere they would be ignored. */
export const parameterStyle: FunctionRule = (file, r) => {
  const d = file.definition;
  const groups = [
    [['parameters'], d.parameters],
    [['continuation', 'parameters'], d.continuation?.parameters],
  ] as const;
  for (const [where, parameters] of groups) {
    for (const [name, parameter] of Object.entries(parameters ?? {})) {
      for (const key of ['style', 'explode'] as const) {
        if (parameter[key] === undefined || parameter.location === 'query') continue;
        // A body field of a form or multipart body: `style: form` repeats the key of its list.
        if (
          key === 'style' &&
          parameter.location === 'body' &&
          ['form', 'deepObject'].includes(parameter.style!)
        )
          continue;
        r.report(
          'PARAMETER_STYLE',
          `parameter '${name}' has '${key}', which only a query parameter has (a body field: style form or deepObject only; its location is ${parameter.location ?? 'not set'}): remove it, or make the parameter 'location: query'`,
          [...where, name, key],
          { key: true },
        );
      }
      if (parameter.explode !== undefined && (parameter.style ?? 'form') !== 'form') {
        r.report(
          'PARAMETER_STYLE',
          `parameter '${name}' has 'explode', which only style form reads (its style is ${parameter.style}): remove it`,
          [...where, name, 'explode'],
          { key: true },
        );
      }
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
