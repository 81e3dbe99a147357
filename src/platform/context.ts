import type { FastifyRequest } from 'fastify';
import type { Permission } from './auth/authorize.js';
import type { Runtimes } from './runtimes.js';
import type { AuditEntry, PlatformStore, UserRecord } from './store/types.js';
import type { Vault } from './vault/vault.js';

/** What every route works with: one per server process. */
export interface PlatformContext {
  readonly dataDir: string;
  readonly store: PlatformStore;
  readonly vault: Vault;
  readonly runtimes: Runtimes;
  /** Records one audited event (never a value: who, what, where, outcome). */
  audit(req: FastifyRequest, entry: Omit<AuditEntry, 'at' | 'actor'>): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The token's user; set for every /api/v1 route but the public ones. */
    user: UserRecord;
  }
  interface FastifyContextConfig {
    /** What the route does, for `authorize`; absent: public (no token needed). */
    permission?: Permission;
  }
}
