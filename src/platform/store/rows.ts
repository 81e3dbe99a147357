import type { AuditEntry, CredentialRow, Role, TokenRecord, UserRecord, VersionRecord } from './types.js';

/**
 * The tables' rows as both engines return them (same columns, same names: the migrations of
 * SQLite and PostgreSQL define the same schema), and the records the contract speaks in.
 */

export interface UserRow {
  id: string;
  name: string;
  role: Role;
  password_hash: string | null;
  created: string;
}
export interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  created: string;
  revoked: string | null;
}
export interface VersionRow {
  solution: string;
  version: number;
  created: string;
  created_by: string;
  digest: string;
  size: number | string;
  removed: string | null;
  removed_by: string | null;
}

/** The columns a VersionRow has (never the files: they may be megabytes). */
export const VERSION_COLUMNS = 'solution, version, created, created_by, digest, size, removed, removed_by';
export interface CredentialDbRow {
  solution: string;
  key: string;
  kind: string;
  meta: string;
  key_id: string;
  wrapped_key: Buffer;
  data: Buffer;
  updated: string;
  updated_by: string;
}
export interface AuditRow {
  at: string;
  actor: string;
  solution: string | null;
  action: string;
  target: string | null;
  outcome: string;
  correlation_id: string | null;
  duration_ms: number | null;
  detail: string | null;
}

export function userOf(row: UserRow, solutions: readonly string[]): UserRecord {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    passwordHash: row.password_hash,
    solutions,
    created: row.created,
  };
}

export function tokenOf(row: TokenRow): TokenRecord {
  return { id: row.id, userId: row.user_id, name: row.name, created: row.created, revoked: row.revoked };
}

export function versionOf(row: VersionRow): VersionRecord {
  return {
    solution: row.solution,
    version: row.version,
    created: row.created,
    createdBy: row.created_by,
    digest: row.digest,
    // PostgreSQL's BIGINT comes as text.
    size: Number(row.size),
    ...(row.removed !== null ? { removed: { at: row.removed, by: row.removed_by ?? 'system' } } : {}),
  };
}

export function credentialOf(row: CredentialDbRow): CredentialRow {
  return {
    solution: row.solution,
    key: row.key,
    kind: row.kind,
    meta: JSON.parse(row.meta) as Record<string, unknown>,
    keyId: row.key_id,
    wrappedKey: row.wrapped_key,
    data: row.data,
    updated: row.updated,
    updatedBy: row.updated_by,
  };
}

export function auditOf(row: AuditRow): AuditEntry {
  return {
    at: row.at,
    actor: row.actor,
    solution: row.solution,
    action: row.action,
    target: row.target,
    outcome: row.outcome,
    correlationId: row.correlation_id,
    durationMs: row.duration_ms,
    detail: row.detail,
  };
}

/** The audit table's columns, in the order `auditValues` gives them. */
export const AUDIT_COLUMNS =
  'at, actor, solution, action, target, outcome, correlation_id, duration_ms, detail';

/** How many values one audit row binds. */
export const AUDIT_COLUMN_COUNT = AUDIT_COLUMNS.split(',').length;

/** An audit entry's values for an INSERT, in `AUDIT_COLUMNS`' order. */
export function auditValues(e: AuditEntry): unknown[] {
  return [
    e.at,
    e.actor,
    e.solution,
    e.action,
    e.target,
    e.outcome,
    e.correlationId,
    e.durationMs === null ? null : Math.round(e.durationMs),
    e.detail ?? null,
  ];
}
