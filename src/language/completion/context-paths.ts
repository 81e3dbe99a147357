/** A field of `@ctx`: what it holds, and the fields under it known whatever the solution. */
export interface ContextField {
  readonly doc: string;
  readonly fields?: Readonly<Record<string, ContextField>>;
}

const leaf = (doc: string): ContextField => ({ doc });

const ERROR: ContextField = {
  doc: 'The error of the last attempt (error handlers read it).',
  fields: { name: leaf('Its name or code (`CredentialNotFoundError`, ...).'), message: leaf('Its message.') },
};

/**
 * `@ctx` as conventions.md lists it and src/runtime/context.ts fills it; what depends on the
 * solution (parameters, queries, datasources, settings, named expressions) is added by
 * expressions.ts from the solution's files.
 */
export const CONTEXT: Readonly<Record<string, ContextField>> = {
  parameters: leaf("The function's parameters, by name, as resolved for this call."),
  queries: leaf("The results of the function's `queries`, by name."),
  guard: {
    doc: 'The guard function of this function.',
    fields: { output: leaf("The guard function's output (read by the guard's `result`)."), error: ERROR },
  },
  request: {
    doc: 'The request as sent.',
    fields: {
      method: leaf('HTTP method.'),
      url: leaf('The full url.'),
      headers: leaf('Headers, by name.'),
      body: leaf('The body sent.'),
    },
  },
  response: {
    doc: 'The response of the remote service.',
    fields: {
      ok: leaf('true for a 2xx status.'),
      status: leaf('HTTP status code.'),
      statusText: leaf('HTTP status text.'),
      headers: leaf('Headers, by lower-case name.'),
      body: leaf('The parsed body.'),
    },
  },
  output: leaf('The output: the outputTransform result, else the body.'),
  error: ERROR,
  entity: leaf('The local table (entity) this call fills or changes.'),
  commandId: leaf('The id of the queued command being run.'),
  correlationId: leaf('The id of this execution, in logs and traces.'),
  record: leaf('The record being written (operations: `primaryKey`, `records`).'),
  user: {
    doc: 'The user the solution runs for.',
    fields: {
      id: leaf("The user's id."),
      email: leaf("The user's email."),
      displayName: leaf("The user's name."),
    },
  },
  solution: {
    doc: 'The solution.',
    fields: {
      id: leaf("The solution's id (the platform's, or solution.yaml `id`)."),
      name: leaf("The solution's name."),
      title: leaf("solution.yaml's `title`."),
      settings: {
        doc: "solution.yaml's settings.",
        fields: { custom: leaf("solution.yaml's `settings.custom`, by name.") },
      },
    },
  },
  organization: {
    doc: 'The organization (the platform, or solution.yaml `organization`).',
    fields: { id: leaf("The organization's id."), name: leaf("The organization's name.") },
  },
  system: {
    doc: 'The device (or the platform).',
    fields: {
      timezone: {
        doc: 'The time zone.',
        fields: { name: leaf('IANA name (`Europe/Paris`).'), offset: leaf('Offset now (`+0100`).') },
      },
      locale: leaf('BCP 47 locale (`de-CH`).'),
      isOffline: leaf('true when the device is offline.'),
      isOnline: leaf('true when the device is online.'),
    },
  },
  expressions: leaf("solution.yaml's named `expressions`, each evaluated where it is read."),
  datasources: leaf("Another datasource's rows, by its name (sync order follows)."),
  action: {
    doc: 'The global action being run.',
    fields: { parameters: leaf("The action's parameters, by name.") },
  },
  current: {
    doc: 'What a screen or a list step is on.',
    fields: { item: leaf('The record being handled (`execute-entities`: each record in turn).') },
  },
  jig: {
    doc: 'The screen.',
    fields: { inputs: leaf('Inputs given to the screen (`restfn sync --input`).') },
  },
  inputs: leaf('Inputs given (`restfn sync --input`).'),
  components: leaf("A screen's components: a form's values are `@ctx.components.<id>.state.data`."),
};
