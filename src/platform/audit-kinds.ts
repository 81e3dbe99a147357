import type { AuditFilter } from './store/types.js';

/**
 * The audit actions that run something: the platform ran a function (`execute`; the console's
 * Preview, an API client's POST .../execute), made a device's HTTP call for it (`call`: `restfn
 * run/sync/action --server` or an app ran the function and the platform added the credentials), or previewed a datasource or an action.
 * Every other action of a solution changes it: publishes, credentials, connections, versions removed.
 */
export const EXECUTION_ACTIONS = ['execute', 'call', 'preview-datasource', 'preview-action'] as const;

/** What a solution's log can be narrowed to, besides everything. */
export const AUDIT_KINDS = ['executions', 'changes'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** The audit filter of a kind of entries. */
export function kindFilter(kind: AuditKind | undefined): Pick<AuditFilter, 'actions' | 'notActions'> {
  if (kind === 'executions') return { actions: EXECUTION_ACTIONS };
  if (kind === 'changes') return { notActions: EXECUTION_ACTIONS };
  return {};
}
