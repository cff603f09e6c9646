// The shape of one command of bin/invoicing: the words that select it, its help, how its flags
// become the arguments of one operation of src/operations/index.ts, and how that operation's
// result reads as text (typed by the operation: `text` gets exactly what the operation answers).
// Only types and plain data here, so that `--help` and usage errors load no database code.
import type { ParseArgsConfig } from 'node:util';
import type { RawArgs } from '../operations/define.js';
import type { OperationName, OperationResult } from '../operations/index.js';

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;
export type FlagValues = Record<string, string | boolean | undefined>;

export const str = { type: 'string' } as const;
export const bool = { type: 'boolean' } as const;

export interface TextContext {
  /** Base URL of the partner API for curl examples, from HOST and PORT. */
  apiBaseUrl: string;
}

export interface Command<N extends OperationName = OperationName> {
  /** Words that select it, e.g. "keys create". */
  name: string;
  summary: string;
  /** Arguments after the name, for the usage line. */
  usage: string;
  /** More help: what the arguments mean, examples. */
  help: string;
  options: OptionSpecs;
  /** Name of the one positional argument the command takes, if any (e.g. "ID"). */
  positional?: string;
  required?: readonly string[];
  operation: N;
  /** The operation's raw arguments from the flags (read and checked by the operation itself). */
  args(values: FlagValues, positional: string | undefined): RawArgs;
  /** The result for people; `--json` prints the result itself. */
  text(result: OperationResult<N>, context: TextContext): string;
}

/** A command, its `text` typed by the result of its operation. */
export function command<N extends OperationName>(definition: Command<N>): Command<N> {
  return definition;
}
