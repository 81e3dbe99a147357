/**
 * Every error code restfn raises, in one place (as fastify keeps lib/errors.js): its family, and
 * from the family the CLI's exit code and the platform's HTTP status, with a one-line meaning for
 * the reference docs. A code belongs to one family only; `RestfnError` takes only codes listed here
 * (the type checker refuses any other), and docs/reference.md is generated from this table.
 */

/** Who has to act: the family decides the exit code and the HTTP status. */
export const FAMILIES = {
  usage: { exit: 2, http: 400, meaning: 'the caller used restfn wrongly (arguments, names, files)' },
  definition: { exit: 3, http: 422, meaning: "the app author's definition or expression is wrong" },
  credentials: { exit: 4, http: 424, meaning: 'a credential is missing or unusable' },
  call: { exit: 1, http: 502, meaning: 'the call to the remote service failed' },
  data: { exit: 1, http: 422, meaning: 'a value could not be written to or read from local data' },
  interrupted: { exit: 130, http: 499, meaning: 'stopped by the user (Ctrl-C)' },
  internal: { exit: 70, http: 500, meaning: 'a bug in restfn' },
} as const;

export type ErrorFamily = keyof typeof FAMILIES;

interface CodeEntry {
  readonly family: ErrorFamily;
  readonly meaning: string;
  /** The platform's HTTP status when it differs from the family's. */
  readonly http?: number;
}

const code = (family: ErrorFamily, meaning: string, http?: number): CodeEntry =>
  http === undefined ? { family, meaning } : { family, meaning, http };

export const ERROR_CODES = {
  // The caller's mistakes.
  USAGE: code('usage', 'Wrong usage: an unknown command or option, a missing or invalid argument.'),
  SOLUTION_NOT_FOUND: code('usage', 'No solution folder was found (or the one given has none).', 404),
  FUNCTION_NOT_FOUND: code('usage', 'The named function does not exist in the solution.', 404),
  DATASOURCE_NOT_FOUND: code('usage', 'The named datasource does not exist in the solution.', 404),
  INPUT_REQUIRED: code(
    'usage',
    "A datasource's function needs an input (`@ctx.inputs.x`, `@ctx.jig.inputs.x`) that was not given.",
  ),
  ACTION_NOT_FOUND: code('usage', 'The named action does not exist in the solution.', 404),
  PARAMETER_UNKNOWN: code('usage', 'A value was given for a parameter the function does not declare.'),
  PARAMETER_REQUIRED: code('usage', 'A required parameter has no value and no default.'),
  PARAMETER_TYPE: code('usage', "A parameter value cannot be coerced to the parameter's type."),
  INVALID_HEADER: code(
    'usage',
    'A header name or value HTTP cannot carry (a line break, a control character).',
  ),
  INVALID_URL_VALUE: code('usage', 'A path or host value that would move the request (`..`).'),
  ACTION_RECORD_ID: code(
    'usage',
    'An update or delete action has no record id (data.id, else parameters.id).',
  ),
  RECORD_NOT_FOUND: code(
    'usage',
    'An update or delete action names a record that is not in the local table.',
    404,
  ),
  RECORD_EXISTS: code('usage', 'A create action names a record that is in the local table already.', 409),
  COMMAND_NOT_FOUND: code('usage', 'No queued command has the given id (or a queue action gave no id).', 404),
  COMMAND_BUSY: code('usage', 'The queued command is being sent right now.', 409),
  COMMAND_REBUILD: code(
    'usage',
    'A queued command cannot be rebuilt from the current files (`queue retry --rebuild`): it was queued before restfn kept what built it, or its action no longer has the step.',
    409,
  ),
  DATABASE_NOT_FOUND: code('usage', 'The local database file does not exist.', 404),
  DATABASE_INVALID: code('usage', 'The local database file is not a SQLite database (or is damaged).'),
  DATABASE_UNAVAILABLE: code('usage', 'The local database cannot be opened or is locked.', 503),
  SQLITE_UNAVAILABLE: code(
    'usage',
    "SQLite's native module (better-sqlite3) does not load in this copy of restfn (the VS Code extension's own server, or an install built for another Node): Run, Sync and stored credentials need restfn installed (`npm install restfn`).",
    503,
  ),
  QUERY_INVALID: code('usage', 'SQL given to `restfn query` that SQLite rejects.'),
  QUERY_NOT_READ_ONLY: code('usage', 'SQL given to `restfn query` that would write.'),
  FILE_ERROR: code('usage', 'A file or folder the command needs cannot be read or written.'),
  FILE_EXISTS: code('usage', 'The file to create exists already.', 409),
  INVALID_NAME: code('usage', 'A name that cannot be a function file name.'),
  SECRET_MISSING: code('usage', 'A secret value was expected on standard input and none came.'),
  CANCELLED: code('usage', 'The user cancelled a prompt.'),
  LOGIN_NOT_NEEDED: code('usage', 'A login was asked for a credential that needs none.'),
  UNSUPPORTED_STEP: code(
    'usage',
    'A function needs a part this runtime was created without (a local store).',
  ),
  // `restfn import`: the description given.
  IMPORT_UNREADABLE: code(
    'usage',
    '`restfn import`: the description cannot be read, or is neither JSON nor YAML.',
  ),
  IMPORT_NOT_LOCAL: code('usage', '`restfn import` was given a web address: it reads local files only.'),
  IMPORT_FORMAT: code(
    'usage',
    '`restfn import`: not OpenAPI 3.0/3.1, Swagger 2.0 or Postman Collection v2.1 (or unreadable as one).',
  ),
  IMPORT_REF_UNRESOLVED: code(
    'usage',
    '`restfn import`: a `$ref` of the description leads nowhere (or to the web).',
  ),
  IMPORT_VARIABLE_MISSING: code(
    'usage',
    '`restfn import`: the address of the API needs a variable with no value (pass --var name=value).',
  ),
  IMPORT_ONLY_UNMATCHED: code(
    'usage',
    '`restfn import --only`, `--exclude` or `--from` names nothing of the description or the solution (or they leave no operation).',
  ),
  IMPORT_NO_OPERATIONS: code('usage', '`restfn import`: the description has no operation restfn can call.'),
  // The app author's mistakes.
  INVALID_DEFINITION: code('definition', 'A definition file has errors (`restfn validate` lists them).'),
  INVALID_URL: code('definition', 'The address a definition builds is not a valid http(s) URL.'),
  EXPRESSION_SYNTAX: code('definition', 'An expression does not compile.'),
  PAGING_STALLED: code(
    'definition',
    "A continuation's `when` held but its next request was empty or the same as the last: paging advanced nothing (the tables are left as they were).",
  ),
  EXPRESSION_EVALUATION: code('definition', 'An expression failed while evaluating (or ran into a limit).'),
  EXPRESSION_TOO_DEEP: code('definition', 'An expression is nested deeper than the limit.'),
  EXECUTION_STALLED: code(
    'definition',
    "A solution's work held its worker past every limit (a script or expression past its ceiling, a huge publish): its work in flight was stopped.",
  ),
  EXECUTION_MEMORY: code(
    'definition',
    "A solution's executions needed more memory than the platform gives them (`restfn serve --max-memory-mb`): its work in flight was stopped.",
  ),
  SCRIPT_LOAD: code('definition', 'An expression script module does not load.'),
  SCRIPT_ERROR: code('definition', 'An expression script function threw.'),
  SCRIPT_TIMEOUT: code('definition', 'An expression script function ran past its time limit.'),
  SCRIPT_MEMORY: code('definition', 'An expression script function needed more memory than its limit.'),
  SCRIPT_RESULT: code('definition', 'An expression script function returned something that is not JSON.'),
  BODY_ENCODING: code(
    'definition',
    "A request body the function's Content-Type cannot carry: a form or multipart body that is not an object of fields, a file in a url-encoded form.",
  ),
  QUERY_FAILED: code('definition', "A definition's SQL statement that SQLite rejects."),
  QUERY_CYCLE: code('definition', "A function's queries depend on each other in a cycle."),
  DATASOURCE_CYCLE: code('definition', 'Datasources read each other (`@ctx.datasources.<name>`) in a cycle.'),
  QUERY_NOT_ALLOWED: code(
    'definition',
    "A definition's SQL that would change the connection (ATTACH, DETACH, PRAGMA, VACUUM, a transaction) where restfn confines it: a datasource preview on the platform.",
  ),
  IMPORT_INVALID_FUNCTION: code(
    'definition',
    '`restfn import`: every operation selected would give a function file with errors; nothing was written (some of them: those are left out, with a warning).',
  ),
  // Credentials.
  CREDENTIAL_NOT_FOUND: code('credentials', 'The named credential is not stored.', 404),
  CREDENTIAL_KIND: code('credentials', 'The stored credential is of another kind than the parameter needs.'),
  CREDENTIAL_INCOMPLETE: code('credentials', 'The OAuth credential lacks an endpoint or client id.'),
  CREDENTIAL_VALUE: code(
    'credentials',
    'A stored value cannot be used where it goes (a line break in a header).',
  ),
  CREDENTIAL_UNAVAILABLE: code('credentials', 'No credentials can be looked up in this runtime.'),
  CONNECTION_REQUIRED: code(
    'credentials',
    "The credential calls as each user, and the calling user has no connection for it (or its refresh was refused): the answer's connectUrl makes one.",
  ),
  CONNECTION_NOT_FOUND: code('credentials', 'The user has no connection to that credential.', 404),
  CREDENTIAL_ORIGIN: code(
    'credentials',
    'A request would carry a credential to an origin it is not bound to (`--origin`); nothing was sent.',
    403,
  ),
  CREDENTIAL_DECRYPT: code('credentials', 'A stored credential cannot be decrypted with this key.'),
  CREDENTIAL_KEY_MISSING: code('credentials', 'The encryption key of the credential store is missing.'),
  CREDENTIAL_KEY_INVALID: code(
    'credentials',
    'The encryption key of the credential store is not a valid key.',
  ),
  CREDENTIAL_KEY_NAME: code('credentials', 'A credential key that cannot be a name (empty, too long).'),
  CREDENTIAL_STORE_BUSY: code('credentials', 'Another process holds the credential store too long.', 503),
  CREDENTIAL_STORE_CORRUPT: code('credentials', 'The credential store holds a record it cannot read.'),
  LOCAL_CALL_CREDENTIAL: code(
    'credentials',
    'A local call (useLocalCall) needs a credential only the platform holds.',
  ),
  LOGIN_REQUIRED: code(
    'credentials',
    'The OAuth credential needs a login (no token, or the refresh was refused).',
    401,
  ),
  LOGIN_FAILED: code('credentials', 'The OAuth login did not complete.'),
  OAUTH_ERROR: code('credentials', 'The OAuth token endpoint refused or failed a request.'),
  // The remote call.
  REMOTE_ERROR: code('call', 'The service answered with an error status (or a handler said error).'),
  NETWORK_ERROR: code('call', 'No usable answer: connection refused or reset, DNS failure, socket closed.'),
  TIMEOUT: code('call', 'A deadline passed (connect, headers, body, request, execution, sync).', 504),
  RESPONSE_FORMAT: code('call', "The response body is not in the function's format."),
  RESPONSE_TOO_LARGE: code('call', 'The response body is larger than the limit.'),
  RESPONSE_ENCODING: code(
    'call',
    'The response is in a content encoding or character set restfn does not decode (it is never passed on as bytes).',
  ),
  REQUEST_LIMIT: code(
    'call',
    'One execution sent the most requests it may (retries and redirects counted): the error handlers retry too often.',
  ),
  ANSWER_TOO_LARGE: code(
    'call',
    "The platform's answer (an output, a trace, a `/call` response) is larger than its limit (`restfn serve --max-answer-mb`).",
  ),
  PAGE_LIMIT: code(
    'call',
    'The service still offered pages at the page cap (`settings.sync.maxPages`); the tables are left as they were.',
  ),
  RESPONSE_TOO_DEEP: code('call', 'The response body is nested deeper than the limit.'),
  REDIRECT_LIMIT: code(
    'call',
    'Too many redirects, a redirect loop, or a redirect that may not be followed.',
  ),
  ABORTED: code('call', 'The caller stopped the call.', 499),
  TARGET_REFUSED: code(
    'call',
    'The platform does not call this address (loopback, private, link-local, ...): SSRF protection.',
    403,
  ),
  COMMAND_FAILED: code(
    'call',
    "The service refused an action's command for good; it stays in the queue as failed.",
  ),
  TEMP_ID_UNRESOLVED: code(
    'data',
    'A queued command names a record created offline whose create never reached the service (deleted from the queue, or its answer had no id); it is not sent.',
  ),
  RECORD_REPLACED: code(
    'data',
    'A warning on a sent create: the id the service gave the new record was held by a stale local row, which the new record replaced.',
  ),
  CREATED_WITHOUT_ID: code(
    'data',
    "A create was sent, but the service's answer has no `id`: the record keeps its temporary id.",
  ),
  // The platform (`restfn serve`) and its clients.
  AUTH_REQUIRED: code(
    'usage',
    'The platform needs an API token (Authorization: Bearer) and got none or an unknown one.',
    401,
  ),
  FORBIDDEN: code(
    'usage',
    "The token's user may not do this here (role, or not a member of the solution).",
    403,
  ),
  REQUEST_INVALID: code('usage', 'A request to the platform that is not what the endpoint takes.'),
  REQUEST_TOO_LARGE: code('usage', "A request body over the platform's size limit.", 413),
  RATE_LIMITED: code(
    'usage',
    'Too many requests by this user (or address), sign-in attempts, or executions of one solution at once; wait for Retry-After.',
    429,
  ),
  PLATFORM_BUSY: code(
    'usage',
    'The platform holds as many large request bodies and unread answers as it allows (`restfn serve --max-held-mb`); wait for Retry-After.',
    503,
  ),
  ROUTE_NOT_FOUND: code('usage', 'No such endpoint on the platform.', 404),
  SOLUTION_NOT_PUBLISHED: code('usage', 'The solution has no published version on the platform.', 404),
  USER_EXISTS: code('usage', 'A user of that name exists already.', 409),
  ID_AMBIGUOUS: code(
    'usage',
    'The start of an id given matches more than one (queue commands, tokens): give more of it.',
  ),
  TOKEN_LIMIT: code('usage', 'The user holds the most live API tokens allowed (50): revoke one first.', 409),
  DATA_IN_USE: code('usage', 'Another `restfn serve` runs on the same SQLite data folder (`--data`).', 409),
  LISTEN_FAILED: code(
    'usage',
    '`restfn serve` cannot listen on the address and port given (in use, not allowed).',
  ),
  APP_ORIGIN_WILDCARD: code(
    'usage',
    "`restfn serve --app-origin` (or RESTFN_APP_ORIGINS) was given a wildcard (`*`): the API takes bearer tokens, so each app's origin is listed instead.",
  ),
  APP_ORIGIN_INVALID: code(
    'usage',
    '`restfn serve --app-origin` (or RESTFN_APP_ORIGINS) was given something other than an origin: scheme, host and optional port, with no path, query or user.',
  ),
  SIGN_IN_FAILED: code('usage', 'The console sign-in had a wrong user name or password.', 401),
  CSRF_INVALID: code(
    'usage',
    'A change made with the console session cookie without its CSRF token (x-csrf-token).',
    403,
  ),
  USER_NOT_FOUND: code('usage', 'No user of that name.', 404),
  LAST_ADMIN: code('usage', 'The last admin cannot be removed or lose the admin role.', 409),
  SELF_REMOVAL: code('usage', 'An admin cannot remove their own user: another admin does it.', 409),
  TOKEN_NOT_FOUND: code('usage', 'No API token with that id.', 404),
  CREDENTIAL_IN_USE: code(
    'usage',
    'Users are connected to the OAuth credential: only an admin may change its client, endpoints, origins or client secret (and every connection is then dropped).',
    409,
  ),
  SOLUTION_QUOTA: code(
    'usage',
    "A publish would take the solution's stored versions past its quota (`restfn serve --max-solution-mb`).",
    413,
  ),
  VERSION_REMOVED: code(
    'usage',
    "The version's files were removed by retention (`restfn serve --keep-versions`): its row stays in the history, its files are gone.",
    410,
  ),
  STORE_FULL: code(
    'usage',
    'The platform cannot write its data (the disk is full or read-only): publishes and executions fail until there is room.',
    507,
  ),
  PUBLISH_INVALID: code('definition', 'The uploaded solution has errors; nothing was published.'),
  STORE_UNAVAILABLE: code(
    'usage',
    "The platform's database (PostgreSQL) cannot be reached; requests fail until it is back.",
    503,
  ),
  STORE_REFUSED: code(
    'usage',
    "The platform's database (PostgreSQL) refused its connection: wrong user or password, no such database, or not allowed.",
    503,
  ),
  STORE_SCHEMA_NEWER: code(
    'usage',
    "The platform's database was migrated by a newer restfn than this one: upgrade restfn.",
    503,
  ),
  LOGINS_INVALID: code(
    'usage',
    "The CLI's stored platform logins (`$XDG_CONFIG_HOME/restfn/platforms.json`) cannot be read.",
  ),
  TARGET_NOT_FOUND: code('usage', "The allowed target to remove is not on the platform's list.", 404),
  TARGET_LIMIT: code(
    'usage',
    'A solution has the most private targets the API allows (100; 1,000 on the platform): remove one first.',
    409,
  ),
  SERVER_UNREACHABLE: code('call', 'The platform could not be reached (the CLI with --server).', 502),
  SERVER_ERROR: code('call', 'The platform answered with an error the CLI did not expect.', 502),
  // Local data.
  INVALID_TABLE: code('data', 'A name that cannot be a table name.'),
  RECORD_ID_INVALID: code('data', 'A record whose id is neither text nor a number.'),
  FILE_VALUE: code(
    'data',
    "A file for a form, multipart or binary body that cannot be read: not bytes, base64, a data URI or a file:// URI in the device's file store (the platform takes no file:// URI: the device sends the bytes).",
  ),
  CONVERSION_INPUT: code('data', 'A value a conversion cannot read (not base64, a file outside the store).'),
  CONVERSION_UNAVAILABLE: code('data', 'A conversion needs a decoder that is not available.'),
  LOCAL_WRITE_FAILED: code(
    'data',
    "A command was sent, but writing its function's operations locally failed.",
  ),
  // Stopped, or a bug.
  INTERRUPTED: code('interrupted', 'Stopped by Ctrl-C; the message says what was kept.'),
  INTERNAL: code('internal', 'An error restfn did not expect: a bug (RESTFN_DEBUG=1 shows where).'),
  ENGINE_ERROR: code('internal', 'A failure without a code of its own, as recorded in events and the queue.'),
} as const satisfies Record<string, CodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** The CLI's exit code for an error code (docs/cli.md's table). */
export function exitCodeOf(errorCode: ErrorCode): number {
  return FAMILIES[ERROR_CODES[errorCode].family].exit;
}

/** The platform's HTTP status for an error code. */
export function httpStatusOf(errorCode: ErrorCode): number {
  const entry: CodeEntry = ERROR_CODES[errorCode];
  return entry.http ?? FAMILIES[entry.family].http;
}
