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

export const deprecatedErrorTransform: FunctionRule = (file, r) => {
  if (file.definition.errorTransform !== undefined) {
    r.report(
      'DEPRECATED_KEY',
      "errorTransform is the older form of error shaping; use the 'error' list of handlers instead",
      ['errorTransform'],
      { key: true },
    );
  }
};
