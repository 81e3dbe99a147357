import type { Role, UserRecord } from '../store/types.js';

/** What a request wants to do. Each route names one; `authorize` is the only place that decides. */
export type Permission =
  | 'users.manage'
  | 'tokens.manage-own'
  | 'solutions.list'
  | 'solution.read'
  | 'solution.publish'
  | 'credentials.manage'
  | 'function.execute'
  | 'function.trace'
  | 'executions.read'
  | 'audit.read'
  | 'metrics.read'
  | 'targets.manage';

/** Per role, what it may do in a solution it belongs to (an admin: in every solution). */
const GRANTS: Readonly<Record<Role, ReadonlySet<Permission>>> = {
  admin: new Set<Permission>([
    'users.manage',
    'tokens.manage-own',
    'solutions.list',
    'solution.read',
    'solution.publish',
    'credentials.manage',
    'function.execute',
    'function.trace',
    'executions.read',
    'audit.read',
    'metrics.read',
    'targets.manage',
  ]),
  author: new Set<Permission>([
    'tokens.manage-own',
    'solutions.list',
    'solution.read',
    'solution.publish',
    'credentials.manage',
    'function.execute',
    'function.trace',
    'executions.read',
  ]),
  user: new Set<Permission>(['tokens.manage-own', 'solutions.list', 'solution.read', 'function.execute']),
};

/** Permissions that are about one solution: the user must belong to it (admins belong to all). */
const PER_SOLUTION: ReadonlySet<Permission> = new Set([
  'solution.read',
  'solution.publish',
  'credentials.manage',
  'function.execute',
  'function.trace',
  'executions.read',
]);

export type Decision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/** Whether `user` may do `permission` (in `solution`, for the per-solution ones): a pure decision. */
export function authorize(user: UserRecord, permission: Permission, solution?: string): Decision {
  if (!GRANTS[user.role].has(permission)) {
    return { allowed: false, reason: `the ${user.role} role may not ${describe(permission)}` };
  }
  if (PER_SOLUTION.has(permission) && user.role !== 'admin') {
    if (solution === undefined || !user.solutions.includes(solution)) {
      return { allowed: false, reason: `user '${user.name}' does not belong to solution '${solution}'` };
    }
  }
  return { allowed: true };
}

function describe(permission: Permission): string {
  return {
    'users.manage': 'manage users',
    'tokens.manage-own': 'manage tokens',
    'solutions.list': 'list solutions',
    'solution.read': 'read solutions',
    'solution.publish': 'publish solutions',
    'credentials.manage': 'manage credentials',
    'function.execute': 'execute functions',
    'function.trace': 'see the raw requests and responses of a preview',
    'executions.read': "see a solution's executions",
    'audit.read': 'read the audit log',
    'metrics.read': "read the platform's metrics",
    'targets.manage': 'change the private targets solutions may call',
  }[permission];
}

/** Tokens are managed by their own user, or by an admin. */
export function authorizeTokensOf(user: UserRecord, owner: string): Decision {
  if (user.role === 'admin' || user.name === owner) return { allowed: true };
  return { allowed: false, reason: `only '${owner}' or an admin may manage the tokens of '${owner}'` };
}
