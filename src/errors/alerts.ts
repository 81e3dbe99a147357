import { randomUUID } from '../portable/random.js';
import type { Clock } from './clock.js';

/** An alert shown to the user (spec 7.2); the CLI prints it, the console will show it. */
export interface Alert {
  /** Stable while the alert is updated in place (grouped errors, a replaced group member). */
  readonly id: string;
  readonly title: string;
  readonly subtitle?: string | undefined;
  readonly description: string | undefined;
  readonly icon: string | undefined;
  readonly isNegative: boolean;
  readonly isWarning?: boolean;
  readonly isPositive?: boolean;
  /** How it closes: by itself after `autoAfterSeconds`, and whether the user may close it. */
  readonly dismiss?: { readonly isEnabled: boolean; readonly autoAfterSeconds?: number } | undefined;
  /** Buttons: their text, and what they do as the handler wrote it (a step for a screen). */
  readonly actions?: ReadonlyArray<{ readonly title: string; readonly action: unknown }> | undefined;
  readonly presentAs: 'toast' | 'modal';
  readonly groupId: string | undefined;
  /** How many errors this alert stands for. */
  readonly count: number;
  readonly correlationId: string;
  readonly function: string;
}

export type AlertInput = Omit<Alert, 'id' | 'count'>;

/**
 * Keeps alerts from flooding the user (spec 7.5 rule 3). Errors the default check raised are
 * grouped: the same title within `windowMs` of the last one updates that alert's count. An alert
 * with a `group.id` replaces the visible alert of its group. Other custom alerts always show.
 */
export class AlertCenter {
  private readonly visible = new Map<string, { alert: Alert; at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = 10_000,
  ) {}

  raise(input: AlertInput, groupByTitle: boolean): Alert {
    const key =
      input.groupId !== undefined
        ? `group:${input.groupId}`
        : groupByTitle
          ? `title:${input.title}`
          : undefined;
    const now = this.clock.now();
    const previous = key ? this.visible.get(key) : undefined;
    const current = previous && now - previous.at <= this.windowMs ? previous.alert : undefined;
    const alert: Alert = { ...input, id: current?.id ?? randomUUID(), count: (current?.count ?? 0) + 1 };
    if (key) this.visible.set(key, { alert, at: now });
    return alert;
  }
}
