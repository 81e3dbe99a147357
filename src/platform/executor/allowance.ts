import { availableParallelism, cpus } from 'node:os';

/**
 * How many workers may start short work at once (issue 41, many tenants). A worker runs one
 * solution's work at a time, so work spread over many solutions spreads over many threads; on a
 * machine whose cores are already busy, each thread more only adds switching (at 100 solutions on
 * 2 cores, eight workers cost 2 ms of CPU per execution where two cost 0.9). While the CPU has room
 * (work waiting on remotes), more workers help, up to --max-workers. So the number allowed follows
 * the CPU: half as many more when work waited for the allowance and the CPU had room, one fewer
 * when it had none. It never goes below the cores (nor 2). Isolation does not depend on it: a lease older than
 * `LONG_LEASE_MS` (one that finished nothing for that long) is not counted (pool.ts), so a runaway solution holds its own worker and no one's
 * place in the allowance.
 */
export interface AllowanceInput {
  /** Work waited for the allowance since the last look. */
  readonly held: boolean;
  /** The share of the CPU nobody used since the last look (0..1): see `CpuRoom`. */
  readonly room: number;
  readonly min: number;
  readonly max: number;
}

/** Room under which the CPU counts as busy: no more workers, and one fewer. */
export const BUSY_ROOM = 0.05;
/** Room over which a worker more may help, when work waited. */
export const GROW_ROOM = 0.2;

/** The allowance after one look: a pure decision (tests give it every case). */
export function nextAllowance(current: number, input: AllowanceInput): number {
  const { held, room, min, max } = input;
  const bounded = Math.min(max, Math.max(min, current));
  // By half at a time (at least one): from the floor to 32 in about 1.5 s of looks, for work that
  // waits on remotes, where each worker more is a remote call more in flight.
  if (held && room > GROW_ROOM) return Math.min(max, bounded + Math.max(1, Math.floor(bounded / 2)));
  if (room < BUSY_ROOM) return Math.max(min, bounded - 1);
  return bounded;
}

/** The smallest allowance: the cores this process may use, at least 2, at most `maxWorkers`. */
export function minAllowance(maxWorkers: number, cores = availableParallelism()): number {
  return Math.min(maxWorkers, Math.max(2, cores));
}

/**
 * The CPU's unused share between two looks: the machine's idle time (other processes count: a
 * busy neighbour leaves no room), and no more than this process's cores left unused (in a
 * container the machine's idle time may be another tenant's, while this process is at its quota).
 */
export class CpuRoom {
  private last = cpuReading();

  constructor(private readonly cores = availableParallelism()) {}

  /** The room since the previous call (the first: since this was made). */
  sample(): number {
    const reading = cpuReading();
    const room = roomBetween(this.last, reading, this.cores);
    this.last = reading;
    return room;
  }
}

/** What `CpuRoom` reads: the time, this process's CPU time, and all CPUs' idle and total times. */
export interface CpuReading {
  readonly wallMs: number;
  readonly processUs: number;
  readonly machine: { readonly idle: number; readonly total: number };
}

function cpuReading(): CpuReading {
  const { user, system } = process.cpuUsage();
  return { wallMs: performance.now(), processUs: user + system, machine: machineTimes() };
}

/** The CPU's unused share between two readings (0..1): see `CpuRoom`. A pure decision. */
export function roomBetween(before: CpuReading, after: CpuReading, cores: number): number {
  const wallUs = (after.wallMs - before.wallMs) * 1000;
  if (wallUs <= 0) return 1;
  const ownRoom = 1 - (after.processUs - before.processUs) / (wallUs * cores);
  const total = after.machine.total - before.machine.total;
  const idle = after.machine.idle - before.machine.idle;
  const machineRoom = total > 0 ? idle / total : ownRoom;
  return Math.max(0, Math.min(1, ownRoom, machineRoom));
}

/** All CPUs' idle and total times so far (ms), as the system counts them. */
function machineTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const { times } of cpus()) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}
