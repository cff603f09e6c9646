// Memory of a server process as the kernel sees it: VmRSS (now) and VmHWM (peak resident size
// since the process started), from /proc/<pid>/status.
import { readFileSync } from 'node:fs';

export interface Memory {
  rssMb: number;
  hwmMb: number;
}

function fieldKb(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) : Number.NaN;
}

export function readMemory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rssMb: fieldKb(status, 'VmRSS') / 1024, hwmMb: fieldKb(status, 'VmHWM') / 1024 };
}

/** Samples VmRSS every `intervalMs` until stopped; returns the largest sample seen. */
export function sampleRss(pid: number, intervalMs = 250): { stop(): number } {
  let largest = 0;
  const sample = () => {
    try {
      largest = Math.max(largest, readMemory(pid).rssMb);
    } catch {
      // The process is gone: the last samples stand.
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return largest;
    },
  };
}
