// The browser build: "a process" is one client (a worker of one tab). Every client operation holds
// the database's lease (a Web Lock) for its whole duration, so work another client left behind (a
// staging table, a claimed command) belongs to a client that ended mid-operation: its tab closed.

/** This client's number, standing where Node puts the process id (in staging tables' names). */
const SELF = 1 + Math.floor(Math.random() * 2 ** 31);

export function currentProcessId(): number {
  return SELF;
}

export function processAlive(pid: number): boolean {
  return pid === SELF;
}

export function processIdentity(_pid: number): string {
  return '';
}

export function workerName(unique: string): string {
  return `${SELF}::${unique}`;
}

export function workerEnded(worker: string): boolean {
  return Number(worker.split(':')[0]) !== SELF;
}
