import type { ActionDefinition, Method } from '../../definition/schema/index.js';
import type { SourceFile } from '../../definition/solution.js';
import type { PropertyPath } from '../../definition/yaml-file.js';
import type { CommandError } from '../../local/command-queue.js';
import type { CallContext } from '../context.js';
import type { PushOptions, PushResult, QueueEngine } from '../push.js';

export interface ActionOptions extends Pick<PushOptions, 'signal' | 'ignoreSchedule'> {
  /** Push the queue after the local change (offline devices and `--no-push` do not). @default true */
  readonly push?: boolean;
}

/** What happened to the action's command. `queued`: not pushed (yet); see `ActionResult.push`. */
export interface ActionCommand {
  readonly id: string;
  readonly state: 'done' | 'queued' | 'waiting' | 'failed';
  readonly error?: CommandError;
  /** The function's output, once the command is done. */
  readonly output?: unknown;
}

/** A step only a screen takes (go back, navigate, a notification, a question): recorded, not run. */
export interface ScreenStep {
  readonly type: string;
  readonly ranHere: false;
  /** A notification's or a question's text, a goBack's target (expressions evaluated). */
  readonly title?: string;
  /** A notification's or a modal's description (expressions evaluated). */
  readonly description?: string;
  /** A follow-up notification whose text could not be evaluated. */
  readonly error?: { readonly code: string; readonly message: string };
}

/** What one action did. Lists, confirms, `execute-action` and `execute-entities` hold their steps. */
export interface ActionResult {
  /** The action file the step is written in. */
  readonly action: string;
  readonly type: ActionDefinition['type'];
  readonly method?: Method;
  readonly entity?: string;
  /** The record's id: a temporary one (`_tmp_...`) until the service gave the real one. */
  readonly record?: string;
  /** The local row after the action (null: deleted, or no local change). */
  readonly row?: Record<string, unknown> | null;
  /** The queued remote call, when the action has a function. */
  readonly command?: ActionCommand;
  /** Queue actions: the commands they changed. */
  readonly commands?: readonly string[];
  readonly push?: PushResult;
  /** `sync-entities`: each table filled, with how many rows its function gave. */
  readonly synced?: ReadonlyArray<{ entity: string; function?: string; pages: number; records: number }>;
  /** What ran inside: a list's actions, a confirm's onConfirmed, the global action, each record. */
  readonly steps?: readonly StepResult[];
  /** Why it did not run (`when` was false). */
  readonly skipped?: string;
  /** The failure `onError` handled, or that a list that is not sequential went on after. */
  readonly error?: { readonly code: string; readonly message: string };
  /**
   * What `onSuccess` (or, after a failure, `onError`) did next, and a `goBack`. A follow-up that
   * failed holds its `error` and is the last one run; the action's own result stays as it was.
   */
  readonly next?: StepResult | readonly StepResult[];
}

export type StepResult = ActionResult | ScreenStep;

export function isScreenStep(step: StepResult): step is ScreenStep {
  return 'ranHere' in step;
}

/** Everything a step needs: where it is written, what the screen gave, how deep the chain is. */
export interface Scope {
  readonly engine: QueueEngine;
  readonly file: SourceFile<'action'>;
  /** What the screen gives, with `action.parameters` of the global action being run. */
  readonly context: CallContext;
  readonly options: ActionOptions;
  /** Actions started by name (follow-ups, execute-action) so far: a cycle ends at MAX_CHAIN. */
  readonly depth: number;
}

/** A step and where it is written in its file. */
export interface Located<T = ActionDefinition> {
  readonly step: T;
  readonly at: PropertyPath;
}
