/**
 * Every problem `restfn validate` reports has one of these stable codes. The summary is what the
 * reference docs list; the message of each finding says what is wrong there and how to fix it.
 */
export const RULES = {
  YAML_SYNTAX: { severity: 'error', summary: 'The file is not valid YAML (or repeats a key).' },
  YAML_ALIAS: {
    severity: 'error',
    summary:
      'A YAML alias cannot become data: it is inside the node its anchor names (`a: &a [*a]`), names no anchor, or aliases expand into more than 100 values (an alias bomb).',
  },
  CREDENTIAL_URL_FROM_CALLER: {
    severity: 'warning',
    summary:
      "A function sends a credential to an address whose scheme, host or port a caller's value fills: the credential's origins refuse other places at run time; fix the address instead.",
  },
  CREDENTIAL_RESHAPED: {
    severity: 'warning',
    summary:
      'The inputTransform passes a body credential to a function: credentials reach transforms as references, so a reshaped one is sent as a meaningless reference, never the secret.',
  },
  CONTINUATION_PARAMETERS: {
    severity: 'warning',
    summary:
      "A continuation's parameters replace the function's on the next pages: the ones it does not repeat (a credential first) are not sent there.",
  },
  PARAMETER_STYLE: {
    severity: 'error',
    summary:
      '`style` or `explode` on a parameter that is not in the query (or `explode` with a style other than form): it would be ignored.',
  },
  PARAMETER_TYPE_UNKNOWN: {
    severity: 'warning',
    summary:
      'A parameter `type` restfn does not know but that is close to one it does (`nmber`, `bool`): the value would go as given, neither checked nor converted.',
  },
  CONTEXT_PATH: {
    severity: 'warning',
    summary:
      'An `@ctx` path that reads nothing: a typo in a context name (`@ctx.respnse`), a parameter the function does not declare, a `settings.custom` key solution.yaml does not have.',
  },
  AMBIGUOUS_HYPHEN: {
    severity: 'warning',
    summary:
      'A hyphen with no spaces that reads one way and may be meant the other: `@ctx.x.count-1` is the name `count-1` (hyphens are part of names in @ctx paths), `$.a-b` is a subtraction (hyphens are operators elsewhere). Write a subtraction with spaces (`a - b`), a name backquoted (`` `a-b` ``).',
  },
  SETTING_CAPPED: {
    severity: 'warning',
    summary:
      "A limit in solution.yaml, or an error handler's retry in a function file, is past the platform operator's ceiling (`restfn serve --max-*`, `--min-retry-delay-ms`): the ceiling applies on that platform.",
  },
  EMPTY_FILE: { severity: 'error', summary: 'The file holds no definition.' },
  SYMLINK_LOOP: {
    severity: 'warning',
    summary:
      'A symbolic link under `functions/`, `datasources/` or `actions/` leads back to itself or to a folder it is in; it is skipped (the files it would repeat are read where they are).',
  },
  FILE_UNREADABLE: {
    severity: 'error',
    summary:
      'A definition file (or folder) cannot be read: a symbolic link to nothing, no permission. Only that file is missing; the rest of the solution loads.',
  },
  UNKNOWN_KEY: {
    severity: 'error',
    summary: 'A key the format does not know; the message suggests the closest known key.',
  },
  MISSING_KEY: { severity: 'error', summary: 'A required key is missing.' },
  INVALID_VALUE: {
    severity: 'error',
    summary:
      'A value has the wrong type or is not one of the allowed values (`provider`, `method`, `format`, ...).',
  },
  FILE_NAME: { severity: 'error', summary: 'Function file names are lowercase letters, digits and `-`.' },
  DUPLICATE_FUNCTION: { severity: 'error', summary: 'Two function files resolve to the same function name.' },
  FUNCTION_ID: {
    severity: 'error',
    summary:
      '`functionId` breaks the spec rules (2-50 chars, starts with a letter, only alphanumerics `-` `_`, no special last char).',
  },
  URL_PLACEHOLDER_UNDECLARED: {
    severity: 'error',
    summary: 'A `{name}` placeholder in `url` has no parameter of that name with `location: path`.',
  },
  PATH_PARAM_UNUSED: {
    severity: 'warning',
    summary:
      'A `location: path` parameter does not appear in `url`: it is not sent, but transforms and expressions see it.',
  },
  PATH_PARAM_NOT_REQUIRED: {
    severity: 'error',
    summary:
      'A `location: path` parameter that the `url` uses must be `required: true` or have a default (`value`).',
  },
  URL_BASE_VALUE: {
    severity: 'error',
    summary:
      'A fixed value for a placeholder in the address part of `url` (`https://{host}/...`) would add a user name, query, whitespace or another scheme.',
  },
  URL_INVALID: {
    severity: 'error',
    summary:
      'A written `url` is not an absolute http(s) address: another scheme (`ftp:`, `file:`), no scheme, a control character (a line break) or a user name.',
  },
  URL_QUERY_REPLACED: {
    severity: 'warning',
    summary:
      'A query string written in `url` is removed at run time and replaced by the `location: query` parameters.',
  },
  BODY_ON_GET: {
    severity: 'warning',
    summary: 'GET and HEAD requests never send a body; body parameters are not sent.',
  },
  SCOPE_CONFLICT: {
    severity: 'error',
    summary: '`forRowsWithMatchingIds` cannot be combined with `forRowsWithValues` or `forRowsInRange`.',
  },
  SCOPE_UNKNOWN_PARAM: {
    severity: 'warning',
    summary:
      'A scope value is not a declared parameter but close to the name of one, so it is matched as literal text.',
  },
  KEEP_TEMP_IDS_IGNORED: {
    severity: 'warning',
    summary: '`keepTempIds` has no effect with `forRowsWithMatchingIds`.',
  },
  HANDLER_MATCHES_SUCCESS: {
    severity: 'error',
    summary: 'An error handler `when` is true for a successful 200 response, so data would never load.',
  },
  EXPRESSION_SYNTAX: {
    severity: 'error',
    summary:
      'An expression does not compile as JSONata, or uses a regular expression that cannot run in linear time (lookahead, backreferences).',
  },
  EXPRESSION_TOO_DEEP: {
    severity: 'error',
    summary:
      'An expression nests brackets (or chains operators) deeper than restfn parses (256 levels); split it into steps.',
  },
  UNKNOWN_NAME: {
    severity: 'error',
    summary:
      "An expression calls a `$function` or reads a `$variable` that is neither JSONata's, restfn's, nor a script module's.",
  },
  SCRIPT_LOAD: {
    severity: 'error',
    summary:
      'An expression script (`scripts/expressions/*.js`) does not load: a syntax error, an import, or a file name that is no module name.',
  },
  LITERAL_CREDENTIAL: {
    severity: 'warning',
    summary:
      'A credential is written into the file; store it in the credentials store and reference its key.',
  },
  QUERY_UNKNOWN_DEPENDENCY: {
    severity: 'error',
    summary: 'A query `dependencies` entry names no query of this function.',
  },
  QUERY_CYCLE: { severity: 'error', summary: 'Query `dependencies` form a cycle.' },
  DATASOURCE_CYCLE: {
    severity: 'error',
    summary:
      'Datasources read each other (`@ctx.datasources.<name>`) in a cycle: none of them can be synced first.',
  },
  UNKNOWN_DATASOURCE: {
    severity: 'warning',
    summary: '`@ctx.datasources.<name>` names no datasource of the solution: it reads nothing.',
  },
  ACTION_FUNCTION_MISSING: {
    severity: 'error',
    summary:
      'An action with `method: functionCall` names no `function`: it changes nothing locally, so without one it does nothing.',
  },
  TODO_VALUE: {
    severity: 'error',
    summary:
      'A value `<TODO>` left for the author to fill in (by `restfn new`, or the missing-parameter quick fix): as written it would be sent.',
  },
  UNKNOWN_FUNCTION: {
    severity: 'error',
    summary: 'A datasource, action or guard names a function that does not exist.',
  },
  CALL_PARAMETER_MISSING: {
    severity: 'error',
    summary:
      'A datasource entity, `sync-entities` entry or `execute-entity` action calls a function without a parameter it requires (required, no default): the call would fail before sending anything.',
  },
  CALL_PARAMETER_UNKNOWN: {
    severity: 'warning',
    summary:
      'A datasource entity, `sync-entities` entry or `execute-entity` action passes a value for a parameter the function does not declare: it is dropped without a word, and the call goes out with the default instead.',
  },
  UNKNOWN_ACTION: {
    severity: 'error',
    summary: "An action's `onSuccess`/`onError` or `execute-action` names an action that does not exist.",
  },
  ACTION_CYCLE: {
    severity: 'error',
    summary: 'Actions start each other (`onSuccess`, `onError`, `execute-action`) in a cycle.',
  },
  NAMED_EXPRESSION_CYCLE: {
    severity: 'error',
    summary:
      "solution.yaml's named expressions read each other (`@ctx.expressions.<name>`) in a circle: none of them could give a value.",
  },
  GUARD_CYCLE: {
    severity: 'error',
    summary: "Guards call each other in a cycle (a function's guard leads back to it).",
  },
  LOCAL_CALL_CREDENTIAL: {
    severity: 'error',
    summary: 'A local call (`useLocalCall: true`) can only use OAuth; it names a secret or basic credential.',
  },
  DEPRECATED_KEY: {
    severity: 'warning',
    summary:
      "A key of an older format (`errorTransform`, `table`/`transform` on an error handler, an action's `componentId`); it still runs, and the message shows the current form.",
  },
  INVALID_HEADER: {
    severity: 'error',
    summary:
      'A header parameter cannot be sent: its name is not an HTTP token, or its fixed value holds a line break or control character.',
  },
  HEADER_RESERVED: {
    severity: 'error',
    summary:
      'A header parameter names a header restfn sets itself (`Accept-Encoding`, hop-by-hop and framing headers, `Host`): it decides how the bytes are read, so it is never sent.',
  },
} as const satisfies Record<string, { severity: Severity; summary: string }>;

export type Severity = 'error' | 'warning';
export type RuleCode = keyof typeof RULES;
