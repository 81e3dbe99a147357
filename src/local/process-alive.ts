import { readFileSync } from 'node:fs';

/** This process's id (the browser build: its client's number). */
export function currentProcessId(): number {
  return process.pid;
}

/** Whether process `pid` still runs (EPERM: it does, as another user). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * What tells one run of a process from another that got the same pid later (after a reboot, or in
 * a container whose pids start again at 1): the machine's boot id and the process's start time, on
 * Linux. Empty where /proc does not say (then only the pid is compared).
 */
export function processIdentity(pid: number): string {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    // Field 22 of /proc/<pid>/stat, counted after the parenthesised command name (which may hold spaces).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return start ? `${boot}/${start}` : '';
  } catch {
    return '';
  }
}

/**
 * A name for work this process does (a push of the queue), and whether the process that wrote such
 * a name has ended: its pid no longer runs, or now belongs to another run of a process.
 */
export function workerName(unique: string): string {
  return `${process.pid}:${processIdentity(process.pid)}:${unique}`;
}

export function workerEnded(worker: string): boolean {
  const [pidText, identity, ...rest] = worker.split(':');
  const pid = Number(pidText);
  if (!processAlive(pid)) return true;
  // Names written before the identity was recorded have two parts: the pid alone decides.
  if (rest.length === 0 || !identity) return false;
  const now = processIdentity(pid);
  return now !== '' && now !== identity;
}
