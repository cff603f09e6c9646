// What the numbers were measured on.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { queryRows } from './postgres.js';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  postgres: string;
  os: string;
}

export async function describeMachine(databaseUrl: string): Promise<Machine> {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const [row] = await queryRows<{ version: string }>(databaseUrl, 'select version()');
  return {
    cpu: model.trim(),
    cores: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    postgres: row?.version.split(' on ')[0] ?? 'unknown',
    os: `${os.type()} ${os.release()}`,
  };
}
