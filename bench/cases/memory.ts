// The memory row: the largest VmRSS sampled during load and the VmHWM (the kernel's own peak).
import { fmt } from '../report.js';
import type { BenchContext } from './context.js';

export function memoryRow(
  context: BenchContext,
  name: string,
  peakRssMb: number,
  hwmMb: number,
  goalMb: number,
): void {
  context.report.add({
    group: 'memory',
    case: name,
    metric: 'MB (VmHWM; max VmRSS under load)',
    api: `${fmt(hwmMb, 0)}; ${fmt(peakRssMb, 0)}`,
    bare: '-',
    ratio: `${fmt(hwmMb, 0)} MB`,
    goal: `≤ ${goalMb} MB`,
    pass: hwmMb <= goalMb,
    details: { vmHwmMb: hwmMb, maxVmRssUnderLoadMb: peakRssMb },
  });
}
