import * as z from 'zod';
import { condition, expression, parameterValues, strict } from './common.js';
import { REST_PROVIDER } from './function.js';

/** A local change only: no function is called, nothing is queued. */
export const LOCAL_PROVIDER = 'DATA_PROVIDER_LOCAL';
const provider = z
  .enum([REST_PROVIDER, LOCAL_PROVIDER])
  .describe(
    'DATA_PROVIDER_REST: the local change and a queued call; DATA_PROVIDER_LOCAL: the local change only.',
  );

/**
 * Action types only a screen can carry out (navigate, show, reset what a screen holds). They are
 * accepted wherever an action is and reported as a step for a screen; nothing runs here.
 */
export const SCREEN_STEP_TYPES = [
  'action.go-back',
  'action.go-to',
  'action.set-state',
  'action.reset-state',
  'action.set-jig-state',
  'action.reset-jig-state',
  'action.set-solution-state',
  'action.reset-solution-state',
  'action.reset-component-state',
  'action.info-modal',
  'action.show-alert',
  'action.open-url',
  'action.open-map',
  'action.open-scanner',
  'action.open-media-picker',
  'action.share',
  'action.generate-pdf',
] as const;

export const QUEUE_ACTION_TYPES = [
  'action.retry-queue-command',
  'action.delete-queue-command',
  'action.clear-queue',
] as const;

/**
 * Chooses the schema for a value by its shape and reports that schema's own findings (a union
 * would report every branch's). The union after it is what editors and the reference see; it
 * parses only values the chosen schema accepted.
 */
function byShape<T extends readonly [z.ZodType, ...z.ZodType[]]>(
  choose: (data: unknown) => z.ZodType,
  all: T,
) {
  return z.preprocess((data, ctx) => {
    const result = choose(data).safeParse(data);
    if (!result.success) for (const issue of result.error.issues) ctx.issues.push(issue as never);
    return data;
  }, z.union(all));
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Older files name the type as `componentId: '@jigx/jd-execute-entity'` (see `componentType`). */
export const COMPONENT_ID = /^@[^/]+\/jd-/;

/** `componentId: '@<scope>/jd-<name>'` read as `type: action.<name>` (a warning says so). */
export function componentType(componentId: string): string {
  return `action.${componentId.replace(COMPONENT_ID, '')}`;
}

/** The action written in place: `{ type, options }` (or the older `componentId`), or a notification. */
const step: z.ZodType<ActionDefinition> = z.lazy(() => stepSchema);
/** `onSuccess`/`onError`: an action file's name, an action, a notification, or a list of them. */
const followUpOne = byShape(
  (d) =>
    typeof d === 'string'
      ? z.string()
      : isObject(d) && ('type' in d || 'componentId' in d)
        ? step
        : notification,
  [z.string(), z.lazy(() => stepSchema), z.lazy(() => notification)],
);
const followUp = byShape(
  (d) => (Array.isArray(d) ? z.array(followUpOne) : followUpOne),
  [followUpOne, z.array(followUpOne)],
)
  .optional()
  .describe(
    'Follow-up: the name of an action file, an action ({ type, options }), a notification ({ title, description }), or a list of them; data actions run in order, the rest are steps for a screen.',
  );

/** `onSuccess: { title: Saved }`: a message a screen shows. */
const notification = strict({
  title: z.string().describe('The notification a screen shows.'),
  description: z.string().optional(),
  icon: z.string().optional(),
});

/** Keys every action takes beside `type` and `options`. */
const stepKeys = {
  when: condition.optional().describe('When it is false the action is skipped (and reported as skipped).'),
  style: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("How a screen shows the action's button (isDanger, isDisabled, ...); not read here."),
};

/** Keys every action's options take. */
const common = {
  title: z.string().optional(),
  icon: z.string().optional(),
  onSuccess: followUp,
  onError: followUp,
};

const queueOperation = z
  .string()
  .refine((v) => v === 'add' || v === 'replace' || v.startsWith('='), {
    message: "must be add, replace, or an expression giving one ('=...')",
  })
  .optional()
  .describe(
    "add (the default), replace (collapses the record's queued commands), or an expression giving one.",
  );

const goBack = z
  .union([z.string(), z.boolean()])
  .optional()
  .describe('Where a screen goes afterwards (previous, stay, ...): a step for a screen.');

/** What changes one record (or, with `execute-entities`, each record). */
const recordOptions = {
  provider,
  entity: z.string().describe('Local table name.'),
  method: z
    .enum(['create', 'update', 'save', 'delete', 'functionCall'])
    .describe('Local operation applied to the table at once; the remote call is queued.'),
  function: z.string().optional().describe('Function that updates the remote service.'),
  parameters: parameterValues.optional().describe('Values passed to the function.'),
  functionParameters: parameterValues.optional().describe('Older form carrying both parameters and data.'),
  queueOperation,
  goBack,
};

/** Changes a local record and queues the remote call that changes the remote one (spec 4.4). */
const executeEntity = strict({
  type: z
    .literal('action.execute-entity')
    .describe(
      'Changes one local record here at once and queues the function that changes it on the service.',
    ),
  options: strict({
    ...common,
    ...recordOptions,
    data: parameterValues.optional().describe('Values written to the local row.'),
  }),
  ...stepKeys,
});

/** The same for several records, in order: `data` is their list. */
const executeEntities = strict({
  type: z
    .literal('action.execute-entities')
    .describe('execute-entity for several records, in order: `data` is their list.'),
  options: strict({
    ...common,
    ...recordOptions,
    data: z
      .union([z.array(parameterValues), expression])
      .describe(
        'The records: a list, or an expression giving one. Each is written as it is and read as @ctx.current.item by functionParameters.',
      ),
  }),
  ...stepKeys,
});

/** A form's values created or updated through a function: execute-entity over the form's values. */
const submitForm = strict({
  type: z
    .literal('action.submit-form')
    .describe(
      "A form's values created or updated through a function: execute-entity over the form's values.",
    ),
  options: strict({
    ...common,
    ...recordOptions,
    formId: z.string().describe('The form component: its values are @ctx.components.<formId>.state.data.'),
    data: parameterValues
      .optional()
      .describe("Values written to the local row (default: the form's values)."),
  }),
  ...stepKeys,
});

const syncEntity = strict({
  entity: z.string().describe('Local table name.'),
  function: z.string().optional().describe('Function whose result fills the table.'),
  functionParameters: parameterValues.optional(),
  parameters: parameterValues.optional().describe('Same as functionParameters.'),
});

/** Runs each entity's function and writes its result into the local table, as a datasource sync does. */
const syncEntities = strict({
  type: z
    .literal('action.sync-entities')
    .describe(
      "Runs each entity's function and writes its result into the local table, as a datasource sync does.",
    ),
  options: strict({
    ...common,
    provider: z
      .string()
      .describe('DATA_PROVIDER_REST, DATA_PROVIDER_LOCAL, ...: the functions say how they call.'),
    entities: z
      .array(z.union([z.string(), syncEntity]))
      .describe('Tables, each filled from its function (a bare name: the table only).'),
  }),
  ...stepKeys,
});

const actionList = strict({
  type: z.literal('action.action-list').describe('Runs the actions of `actions` in order.'),
  options: strict({
    ...common,
    actions: z.array(step).describe('The actions, run in order.'),
    isSequential: z
      .boolean()
      .optional()
      .describe(
        'true: a failure stops the list. false (the default): every action runs and the failures are reported after.',
      ),
  }),
  ...stepKeys,
});

const executeAction = strict({
  type: z
    .literal('action.execute-action')
    .describe('Runs a global action (a file in actions/), with parameters.'),
  options: strict({
    ...common,
    action: z.string().describe("A global action's name (a file in actions/)."),
    parameters: parameterValues
      .optional()
      .describe('Its parameters, read there as @ctx.action.parameters.<name>.'),
  }),
  ...stepKeys,
});

/** A screen asks first; here the answer is yes: onConfirmed runs, and the question is a step for a screen. */
const confirm = strict({
  type: z
    .literal('action.confirm')
    .describe(
      'A screen asks first; here the answer is yes: `onConfirmed` runs, the question is a step for a screen.',
    ),
  options: strict({
    ...common,
    isConfirmedAutomatically: condition.optional(),
    modal: z.record(z.string(), z.unknown()).optional().describe('What the screen asks; not read here.'),
    onConfirmed: step.describe('What runs once confirmed (here: always).'),
    onCancelled: followUp,
  }),
  ...stepKeys,
});

/** The command-queue actions an error screen offers (spec 7.3). */
const queueOptions = strict({
  ...common,
  id: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(
      'The command id (the id of its row in the {entity}_error table) or a record id, or a list of them.',
    ),
  commandId: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('Same as id.'),
});

const screenStep = z.looseObject({
  type: z
    .enum(SCREEN_STEP_TYPES)
    .describe(
      'A step only a screen carries out (navigate, show, reset what it holds): reported as a step for a screen, nothing runs here.',
    ),
  options: z.record(z.string(), z.unknown()).optional(),
  ...stepKeys,
});

const stepSchema = z
  .preprocess(
    // The older `componentId: '@jigx/jd-<name>'` names the type: read as `type: action.<name>`.
    (data) => {
      if (!isObject(data) || 'type' in data || typeof data.componentId !== 'string') return data;
      const { componentId, ...rest } = data;
      return { type: componentType(componentId), ...rest };
    },
    z.discriminatedUnion('type', [
      executeEntity,
      executeEntities,
      submitForm,
      syncEntities,
      actionList,
      executeAction,
      confirm,
      ...QUEUE_ACTION_TYPES.map((type) =>
        strict({
          type: z
            .literal(type)
            .describe(
              "An error screen's command-queue action: retry a queued command, delete it, or clear the queue.",
            ),
          options: queueOptions,
          ...stepKeys,
        }),
      ),
      screenStep,
    ] as unknown as [typeof executeEntity, ...Array<typeof executeEntity>]),
  )
  .meta({ id: 'action' }) as unknown as z.ZodType<ActionDefinition>; // one definition, referenced wherever an action is

/** A global action's parameter: `@ctx.action.parameters.<name>` inside. */
const actionParameter = strict({
  type: z.string().optional().describe('Value type: string, number, int, boolean, array, object.'),
  required: z.boolean().optional().describe('The caller must give it.'),
  value: z.unknown().optional().describe('The value when the caller gives none (a value or an expression).'),
  description: z.string().optional(),
});

const wrapped = strict({
  action: step.describe('The action.'),
  parameters: z
    .record(z.string(), actionParameter)
    .optional()
    .describe('What callers give (execute-action parameters, restfn action -p name=value).'),
});

/**
 * An action file: the action itself (`{ type, options }`), or a global action wrapped as
 * `action: { type, options }` with `parameters`. Read either way as one shape.
 */
export const actionDefinition = byShape(
  (d) => (isObject(d) && 'action' in d ? wrapped : step),
  [wrapped, step],
).transform(
  (d): ActionFile =>
    'action' in d
      ? { action: d.action, parameters: d.parameters ?? {}, at: ['action'] }
      : { action: d as ActionDefinition, parameters: {}, at: [] },
) as unknown as z.ZodType<ActionFile>; // its output written out below (the schema is recursive)

// The types, written out: the schema is recursive (lists of actions, follow-ups), which zod's
// inference does not follow.

export type Provider = z.output<typeof provider>;
export type Method = z.output<typeof recordOptions.method>;
export type Notification = z.output<typeof notification>;
export type FollowUp = string | ActionDefinition | Notification;

interface StepKeys {
  readonly when?: boolean | string | undefined;
  readonly style?: Record<string, unknown> | undefined;
}
interface CommonOptions {
  readonly title?: string | undefined;
  readonly icon?: string | undefined;
  readonly onSuccess?: FollowUp | FollowUp[] | undefined;
  readonly onError?: FollowUp | FollowUp[] | undefined;
}
export interface RecordOptions extends CommonOptions {
  readonly provider: Provider;
  readonly entity: string;
  readonly method: Method;
  readonly function?: string | undefined;
  readonly parameters?: Record<string, unknown> | undefined;
  readonly functionParameters?: Record<string, unknown> | undefined;
  readonly queueOperation?: string | undefined;
  readonly goBack?: string | boolean | undefined;
}
export interface ExecuteEntityAction extends StepKeys {
  readonly type: 'action.execute-entity';
  readonly options: RecordOptions & { readonly data?: Record<string, unknown> | undefined };
}
export interface ExecuteEntitiesAction extends StepKeys {
  readonly type: 'action.execute-entities';
  readonly options: RecordOptions & { readonly data: Array<Record<string, unknown>> | string };
}
export interface SubmitFormAction extends StepKeys {
  readonly type: 'action.submit-form';
  readonly options: RecordOptions & {
    readonly formId: string;
    readonly data?: Record<string, unknown> | undefined;
  };
}
export interface SyncEntitiesAction extends StepKeys {
  readonly type: 'action.sync-entities';
  readonly options: CommonOptions & {
    readonly provider: string;
    readonly entities: Array<string | z.output<typeof syncEntity>>;
  };
}
export interface ActionListAction extends StepKeys {
  readonly type: 'action.action-list';
  readonly options: CommonOptions & { readonly actions: ActionDefinition[]; readonly isSequential?: boolean };
}
export interface ExecuteActionAction extends StepKeys {
  readonly type: 'action.execute-action';
  readonly options: CommonOptions & {
    readonly action: string;
    readonly parameters?: Record<string, unknown> | undefined;
  };
}
export interface ConfirmAction extends StepKeys {
  readonly type: 'action.confirm';
  readonly options: CommonOptions & {
    readonly isConfirmedAutomatically?: boolean | string | undefined;
    readonly modal?: Record<string, unknown> | undefined;
    readonly onConfirmed: ActionDefinition;
    readonly onCancelled?: FollowUp | FollowUp[] | undefined;
  };
}
export interface QueueAction extends StepKeys {
  readonly type: (typeof QUEUE_ACTION_TYPES)[number];
  readonly options: z.output<typeof queueOptions>;
}
export interface ScreenStepAction extends StepKeys {
  readonly type: (typeof SCREEN_STEP_TYPES)[number];
  readonly options?: Record<string, unknown> | undefined;
}
/** One action, as written in a file, a list or a follow-up. */
export type ActionDefinition =
  | ExecuteEntityAction
  | ExecuteEntitiesAction
  | SubmitFormAction
  | SyncEntitiesAction
  | ActionListAction
  | ExecuteActionAction
  | ConfirmAction
  | QueueAction
  | ScreenStepAction;

export type ActionParameter = z.output<typeof actionParameter>;

/** An action file, either form: the action, its parameters, and where the action is written in the file. */
export interface ActionFile {
  readonly action: ActionDefinition;
  readonly parameters: Readonly<Record<string, ActionParameter>>;
  /** `['action']` for the wrapped form: findings and expressions point inside it. */
  readonly at: readonly string[];
}
