// The shape of one command of bin/invoicing: the words that select it, its help, how its flags
// become the arguments of one operation of src/operations/index.ts, and how that operation's
// result reads as text (typed by the operation: `text` gets exactly what the operation answers).
// A few commands are no operation (restore works on DATA_DIR's files itself): they `run` and
// their `text` is typed by what `run` answers. Only types and plain data here, so that `--help`
// and usage errors load no database code.
import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.js';
import type { TextKey, TextParams, Translate, UiLanguage } from '../i18n/catalog.js';
import type { RawArgs } from '../operations/arguments.js';
import type { OperationName, OperationResult } from '../operations/index.js';

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;
export type FlagValues = Record<string, string | boolean | undefined>;

export const str = { type: 'string' } as const;
export const bool = { type: 'boolean' } as const;

export interface TextContext {
  /** The operator's language (src/cli/language.ts) and the catalog's texts in it. */
  language: UiLanguage;
  t: Translate;
  /** Base URL of the partner API for curl examples, from HOST and PORT. */
  apiBaseUrl: string;
  /** The support console's address (CONSOLE_URL, or the local one): setup links. */
  consoleUrl?: string;
}

interface CommandShape {
  /** Words that select it, e.g. "keys create". */
  name: string;
  /** One line of help (a text of the catalog, src/i18n/cli-help.ts). */
  summary: TextKey;
  /** Arguments after the name, for the usage line (flags and placeholders: the same in every language). */
  usage: string;
  /** More help: what the arguments mean, examples (a text of the catalog). */
  help?: TextKey;
  /** Values the help's placeholders name (lists built from the code: scopes, event types). */
  helpParams?: TextParams;
  options: OptionSpecs;
  /** Name of the one positional argument the command takes, if any (e.g. "ID"). */
  positional?: string;
  /** The positional argument may be left out (its flags say what to do instead). */
  positionalOptional?: true;
  required?: readonly string[];
  /** The raw arguments from the flags (read and checked by the operation, or by `run`). */
  args(values: FlagValues, positional: string | undefined): RawArgs;
}

/** A command that runs one operation; `--json` prints its result, `text` renders it for people. */
export interface OperationCommand<N extends OperationName = OperationName> extends CommandShape {
  operation: N;
  run?: never;
  text(result: OperationResult<N>, context: TextContext): string;
  /** A check that found a problem: its result is printed all the same, and the exit status is 1. */
  failed?(result: OperationResult<N>): boolean;
}

/** A command that is no operation: it works on the storage's files itself (restore). */
export interface LocalCommand<R = unknown> extends CommandShape {
  operation?: never;
  run(config: Config, args: RawArgs): Promise<R>;
  text(result: R, context: TextContext): string;
}

export type Command = OperationCommand | LocalCommand;

/** A command, its `text` typed by the result of its operation. */
export function command<N extends OperationName>(definition: OperationCommand<N>): OperationCommand<N> {
  return definition;
}

/** A command that is no operation, its `text` typed by what its `run` answers. */
export function localCommand<R>(definition: LocalCommand<R>): LocalCommand<R> {
  return definition;
}
