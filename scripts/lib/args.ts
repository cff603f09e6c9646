// Command-line options of the harnesses (the benchmark, the rehearsals): parsed, or usage and exit 2.
import { parseArgs } from 'node:util';

type Specs = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

export function parseOptions<const O extends Specs>(options: O, usage: string) {
  try {
    return parseArgs({ options: { ...options, help: { type: 'boolean' } }, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}\n`);
    process.exit(2);
  }
}

export function positiveInteger(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isSafeInteger(value) || value < 1) {
    process.stderr.write(`${name} must be a positive integer, got "${raw}"\n`);
    process.exit(2);
  }
  return value;
}
