import { printable } from '../../errors/printable.js';
import { isExpression } from '../../expression/source.js';
import { codePointName, headerValueProblem, isHeaderName } from '../../http/header-text.js';
import { reservedHeader } from '../../http/reserved-headers.js';
import { credentialKind } from '../credential-params.js';
import type { ParameterDefinition } from '../schema/index.js';
import type { FunctionRule } from './reporter.js';

/**
 * Header parameters must be sendable: the name an HTTP token, a fixed value free of line breaks and
 * control characters. Found now rather than as a refused request (`INVALID_HEADER`) on each call.
 */
export const headerText: FunctionRule = (file, r) => {
  const { parameters = {}, continuation } = file.definition;
  const groups: [string[], Record<string, ParameterDefinition>][] = [
    [['parameters'], parameters],
    [['continuation', 'parameters'], continuation?.parameters ?? {}],
  ];
  for (const [at, group] of groups) {
    for (const [name, parameter] of Object.entries(group)) {
      const credential = credentialKind(name, parameter);
      const location = parameter.location ?? (credential ? 'header' : undefined);
      if (location !== 'header') continue;
      if (!isHeaderName(name)) {
        r.report(
          'INVALID_HEADER',
          `parameter '${printable(name)}' is sent as a header, but a header name holds only letters, digits and !#$%&'*+-.^_\`|~ (no spaces, colons or line breaks); rename it`,
          [...at, name],
          { key: true },
        );
      }
      const reserved = reservedHeader(name);
      if (reserved !== undefined) {
        r.report(
          'HEADER_RESERVED',
          `header parameter '${printable(name)}' is one restfn sets itself (${reserved}); remove the parameter: it would not be sent`,
          [...at, name],
          { key: true },
        );
        continue;
      }
      const value = parameter.value;
      // A credential's value is its key, never sent; expressions are checked when they run.
      if (credential || typeof value !== 'string' || isExpression(value)) continue;
      const problem = headerValueProblem(value);
      if (problem) {
        r.report(
          'INVALID_HEADER',
          `header parameter '${printable(name)}' has a fixed value holding a ${problem.kind} (${codePointName(problem.codePoint)}), which a header cannot carry; a block scalar ('|' or '>') ends with a line break: write '|-' or a plain value`,
          [...at, name, 'value'],
        );
      }
    }
  }
};
