// CPU time of a process as the kernel counts it (utime + stime of /proc/<pid>/stat, in clock
// ticks of 10 ms): divided by the requests of a run, the CPU one request costs the server.
import { readFileSync } from 'node:fs';

const TICK_MS = 10;

/** CPU milliseconds the process has used so far (user + system). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count the fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
