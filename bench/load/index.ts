// The load generator: wrk when it is on PATH, otherwise autocannon. One tool for a whole run.
import { autocannonTool } from './autocannon.js';
import type { LoadTool } from './types.js';
import { wrkAvailable, wrkTool } from './wrk.js';

export async function chooseLoadTool(forced?: string): Promise<LoadTool> {
  if (forced === 'autocannon') return autocannonTool;
  if (forced === 'wrk' || (await wrkAvailable())) return wrkTool;
  return autocannonTool;
}

export type { LoadResult, LoadSpec, LoadTool } from './types.js';
