import type { FastifyRequest } from 'fastify';
import type { AllowedTargets } from './allowed-targets.js';
import type { AuditLog } from './audit-log.js';
import type { Permission } from './auth/authorize.js';
import type { DataHealth } from './data-health.js';
import type { DeniedRequests } from './denied-requests.js';
import type { HeldBudget } from './held-budget.js';
import type { PlatformMetrics } from './metrics.js';
import type { Counters } from './rate-limit-counters.js';
import type { VersionRetention } from './retention.js';
import type { Runtimes } from './runtimes.js';
import type { SolutionSlots } from './solution-slots.js';
import type { AuditEntry, PlatformStore, TokenRecord, UserRecord, VersionRecord } from './store/types.js';
import type { TtlCache } from './ttl-cache.js';
import type { Vault } from './vault/vault.js';

/** What every route works with: one per server process. */
export interface PlatformContext {
  readonly dataDir: string;
  /** Where browsers and providers reach this platform (`--public-url`, else the address it listens on). */
  publicUrl(): string;
  /** Origins whose pages may call the API (`--app-origin`); a connect flow may return to them. */
  readonly appOrigins: readonly string[];
  /** Which private targets solutions may call (`--allow-private-targets`, `--allow-target`). */
  readonly targets: {
    readonly allowPrivateTargets: boolean;
    readonly allowTargets: Readonly<Record<string, readonly string[]>>;
  };
  /** The private targets allowed: the flags' and those an admin added through the API. */
  readonly allowedTargets: AllowedTargets;
  readonly store: PlatformStore;
  readonly vault: Vault;
  readonly runtimes: Runtimes;
  /** Executions in flight per solution, within the operator's `--max-concurrent-per-solution`. */
  readonly slots: SolutionSlots;
  readonly auditLog: AuditLog;
  /** Refused requests, counted into the audit once a minute. */
  readonly denied: DeniedRequests;
  /** Request counters shared by the instances (rate limits, sign-in attempts). */
  readonly counters: Counters;
  /** Token hash → its live token and user; cleared by any change to users or tokens (any instance). */
  readonly tokens: TtlCache<string, { token: TokenRecord; user: UserRecord } | undefined>;
  /** Solution → its current version; cleared for a solution when it is published (any instance). */
  readonly versions: TtlCache<string, VersionRecord | undefined>;
  /** Versions in use here, and the limits on a solution's stored versions (`--keep-versions`, `--max-solution-mb`). */
  readonly retention: VersionRetention;
  /** Whether the data folder and the store take writes now (`/healthz`). */
  readonly dataHealth: DataHealth;
  /** Large request bodies in flight and answers not yet written out, per user and in all. */
  readonly held: HeldBudget;
  /** The largest answer, MB (`--max-answer-mb`): past it, ANSWER_TOO_LARGE. */
  readonly maxAnswerMb: number;
  /** What `GET /metrics` shows. */
  readonly metrics: PlatformMetrics;
  /** Records one audited event (never a value: who, what, where, outcome). */
  audit(req: FastifyRequest, entry: Omit<AuditEntry, 'at' | 'actor'>): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The token's user; set for every /api/v1 route but the public ones. */
    user: UserRecord;
    /** The console session's CSRF token, when the request came with the session cookie. */
    csrfToken: string | undefined;
    /** Why the request's token or session was refused; thrown once the rate limit counted it. */
    authProblem: Error | undefined;
  }
  interface FastifyContextConfig {
    /** What the route does, for `authorize`; absent: public (no token needed). */
    permission?: Permission;
  }
}
