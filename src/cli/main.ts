// Entry point of bin/invoicing. Reads the command words and flags (node's util.parseArgs), runs the
// operation, prints text (or one JSON object with --json). Exit status: 0 done, 1 refused or
// failed (message on stderr), 2 wrong usage, a bad flag value included. Under --json a failure is
// one JSON object on stderr too. Heavy modules (database drivers, the HTTP server) are loaded only
// once a command really runs, so --help, --version and usage errors answer at once. Texts are in
// the operator's language (src/cli/language.ts: Portuguese unless --lang en or INVOICING_LANG=en);
// what machines read (--json, codes, exit statuses) is the same in both.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { ConfigError } from '../config-error.js';
import { describeDatabaseError } from '../db/errors.js';
import {
  DEFAULT_LANGUAGE,
  type TextKey,
  type TextParams,
  type Translate,
  translator,
  type UiLanguage,
} from '../i18n/catalog.js';
import { describeError, tell } from '../i18n/message.js';
import type { RawArgs } from '../operations/arguments.js';
import { ArgumentError, OperationError } from '../operations/errors.js';
import type { OperationName } from '../operations/index.js';
import { AdminServerFailure } from './admin-socket.js';
import type { Command, FlagValues, LocalCommand, OperationCommand, TextContext } from './command.js';
import {
  COMMANDS,
  commandHelp,
  findCommand,
  GLOBAL_OPTIONS,
  GROUPS,
  generalHelp,
  groupHelp,
  serveHelp,
  usageLine,
} from './commands.js';
import { chooseLanguage } from './language.js';
import { osUser } from './os-user.js';
import { terminalSafe } from './output.js';
import { StartRefused } from './preflight.js';
import type { RunOptions } from './run.js';
import { apiBaseUrl } from './urls.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** Wrong command line: the message (a text of the catalog, or parseArgs' own) and where to look. */
class UsageError extends Error {
  constructor(
    readonly text: { key: TextKey; params?: TextParams } | { raw: string },
    readonly helpCommand: string,
  ) {
    super('key' in text ? text.key : text.raw);
  }

  describe(t: Translate): string {
    return 'key' in this.text ? t(this.text.key, this.text.params) : this.text.raw;
  }
}

/** What one run knows of its operator: the language of its texts. */
interface Run {
  io: Io;
  language: UiLanguage;
  t: Translate;
}

/** Where a run writes, and the environment it reads (tests run main() in-process with their own). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  env?: Record<string, string | undefined>;
}

const processIo: Io = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** The version of package.json (two levels up from src/cli and from dist/cli alike). */
export function version(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return packageJson.version;
}

/** Who runs the command, for the audit trail: --actor, or the OS user. */
function actorOf(values: FlagValues): string {
  return typeof values.actor === 'string' && values.actor.trim() !== '' ? values.actor.trim() : osUser();
}

/** The configuration, checked; loaded on demand (its schema validator is not needed for --help). */
async function configFrom(io: Io): Promise<Config> {
  const { loadConfig } = await import('../config.js');
  return loadConfig(io.env ?? process.env);
}

function wantsHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

function parseFlags(
  args: string[],
  options: Command['options'],
  helpCommand: string,
): { values: FlagValues; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...options, ...GLOBAL_OPTIONS },
      strict: true,
      allowPositionals: true,
    });
    return { values: values as FlagValues, positionals };
  } catch (error) {
    const unknown = (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    const option = unknown ? /'(-[^']*)'/.exec((error as Error).message)?.[1] : undefined;
    if (option) {
      throw new UsageError(
        unknownOption(option, { ...options, ...GLOBAL_OPTIONS }, helpCommand),
        helpCommand,
      );
    }
    // parseArgs explains missing values and the like in its own message (English: node's words).
    throw new UsageError({ raw: (error as Error).message }, helpCommand);
  }
}

/** Variables that settle what an operator may look for as a flag (`serve --port`). */
const VARIABLE_FLAGS = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'REDIS_URL',
  'DOCS_PORT',
  'DOCS_URL',
  'OPS_PORT',
];

/** Edits (insert, delete, replace) from one word to another. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      const replace = (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      next.push(Math.min(replace, (row[j] as number) + 1, (next[j - 1] as number) + 1));
    }
    row = next;
  }
  return row[b.length] as number;
}

/** An unknown flag: which one, the nearest known one, or the variable that sets what it names. */
function unknownOption(
  option: string,
  known: Command['options'],
  command: string,
): { key: TextKey; params: TextParams } {
  const name = option.replace(/^-+/, '').split('=')[0] ?? '';
  const variable = name.toUpperCase().replaceAll('-', '_');
  if (VARIABLE_FLAGS.includes(variable)) {
    return {
      key: 'cli.usage.unknown_option_variable',
      params: { option, variable, example: `${variable}=... bin/invoicing ${command}` },
    };
  }
  const names = Object.keys(known).filter((each) => each !== 'help');
  const nearest = names
    .map((each) => ({ each, edits: distance(name, each) }))
    .filter(({ each, edits }) => edits <= Math.max(2, Math.floor(each.length / 3)))
    .sort((x, y) => x.edits - y.edits)[0];
  return nearest
    ? { key: 'cli.usage.unknown_option_nearest', params: { option, nearest: `--${nearest.each}` } }
    : { key: 'cli.usage.unknown_option', params: { option } };
}

/** What a command prints: its result as JSON (`--json`), or as text for people. */
interface Output {
  json: unknown;
  text: string;
  /** Exit status 1 after printing (a check that found a problem). */
  failed?: boolean;
}

async function runCommand(command: Command, args: string[], run: Run): Promise<number> {
  const { io } = run;
  const { values, positionals } = parseFlags(args, command.options, command.name);
  const expected = command.positional ? 1 : 0;
  const optional = command.positionalOptional === true && positionals.length === 0;
  if (positionals.length !== expected && !optional) {
    const got = positionals.join(' ');
    throw new UsageError(
      expected === 1
        ? positionals.length === 0
          ? { key: 'cli.usage.missing', params: { what: command.positional ?? '' } }
          : { key: 'cli.usage.expected_one', params: { what: command.positional ?? '', got } }
        : { key: 'cli.usage.unexpected', params: { got } },
      command.name,
    );
  }
  const missing = (command.required ?? []).filter((name) => values[name] === undefined);
  if (missing.length > 0) {
    throw new UsageError(
      { key: 'cli.usage.missing', params: { what: missing.map((name) => `--${name}`).join(', ') } },
      command.name,
    );
  }
  const config = await configFrom(io);
  const raw = Object.fromEntries(
    Object.entries(command.args(values, positionals[0])).filter(([, value]) => value !== undefined),
  );
  // Curl examples name the running server's address when the command ran in it (embedded), else
  // the configured HOST and PORT.
  const textContext: TextContext = {
    language: run.language,
    t: run.t,
    apiBaseUrl: apiBaseUrl(config.host, config.port),
    consoleUrl: config.console.url,
  };
  let output: Output;
  try {
    output =
      command.operation === undefined
        ? await runLocalCommand(command, config, raw, textContext)
        : await runOperationCommand(command, config, raw, textContext, {
            actor: actorOf(values),
            notice: (text) => io.err(`\n!!! ${typeof text === 'string' ? text : tell(text, run.t)}\n`),
            servedAt: (url) => {
              textContext.apiBaseUrl = url;
            },
          });
  } catch (error) {
    // A flag value of the wrong form is wrong usage, like an unknown flag.
    if (error instanceof ArgumentError)
      throw new UsageError({ raw: describeError(error, run.t) }, command.name);
    throw error;
  }
  // (text: partner text's control characters shown as escapes, src/cli/output.ts; JSON escapes its own)
  io.out(values.json ? JSON.stringify(output.json, null, 2) : terminalSafe(output.text));
  return output.failed ? EXIT_FAILED : EXIT_OK;
}

async function runOperationCommand<N extends OperationName>(
  command: OperationCommand<N>,
  config: Config,
  raw: RawArgs,
  textContext: TextContext,
  options: RunOptions,
): Promise<Output> {
  const { checkArguments } = await import('../operations/index.js');
  const { runOperation } = await import('./run.js');
  // Arguments of the wrong form are found before anything is opened, locked or created.
  checkArguments(command.operation, raw);
  const result = await runOperation(config, command.operation, raw, options);
  const json = command.operation === 'demo' ? { ...result, api_base_url: textContext.apiBaseUrl } : result;
  return { json, text: command.text(result, textContext), failed: command.failed?.(result) === true };
}

async function runLocalCommand<R>(
  command: LocalCommand<R>,
  config: Config,
  raw: RawArgs,
  textContext: TextContext,
): Promise<Output> {
  const result = await command.run(config, raw);
  return { json: result, text: command.text(result, textContext) };
}

async function runServe(args: string[], { io, language }: Run): Promise<number> {
  const { values, positionals } = parseFlags(args, { demo: { type: 'boolean' } }, 'serve');
  if (positionals.length > 0) {
    throw new UsageError({ key: 'cli.usage.unexpected', params: { got: positionals.join(' ') } }, 'serve');
  }
  const config = await configFrom(io);
  // Before the server's modules load: the SDK hooks pg and ioredis as they are imported.
  const { startTracing } = await import('../tracing/start.js');
  const tracing = await startTracing(io.env ?? process.env);
  const { serve } = await import('./serve.js');
  await serve(config, {
    tracing,
    json: values.json === true,
    demo: values.demo === true,
    production: (io.env ?? process.env).NODE_ENV === 'production',
    actor: actorOf(values),
    language,
  });
  return EXIT_OK;
}

async function dispatch(argv: string[], run: Run): Promise<number | 'serving'> {
  const { io, language } = run;
  const [first, second, ...rest] = argv;
  if (first === '--version') {
    io.out(argv.includes('--json') ? JSON.stringify({ version: version() }) : `invoicing ${version()}`);
    return EXIT_OK;
  }
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    if (first === 'help' && second !== undefined) return dispatch([second, ...rest, '--help'], run);
    io.out(generalHelp(language));
    return first === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (first === 'serve') {
    const args = argv.slice(1);
    if (wantsHelp(args)) {
      io.out(serveHelp(language));
      return EXIT_OK;
    }
    await runServe(args, run);
    return 'serving';
  }
  const single = findCommand([first]);
  if (single) {
    const args = argv.slice(1);
    if (wantsHelp(args)) {
      io.out(commandHelp(single, language));
      return EXIT_OK;
    }
    return runCommand(single, args, run);
  }
  if (!GROUPS.includes(first)) {
    throw new UsageError({ key: 'cli.usage.unknown_command', params: { command: first } }, '');
  }
  const command = second === undefined ? undefined : findCommand([first, second]);
  if (!command) {
    if (second === undefined || second === '--help' || second === '-h') {
      io.out(groupHelp(first, language));
      return second === undefined ? EXIT_USAGE : EXIT_OK;
    }
    throw new UsageError(
      { key: 'cli.usage.unknown_command', params: { command: `${first} ${second}` } },
      first,
    );
  }
  const args = argv.slice(2);
  if (wantsHelp(args)) {
    io.out(commandHelp(command, language));
    return EXIT_OK;
  }
  return runCommand(command, args, run);
}

// ---- failures ----

/** A short, safe explanation for well-known environment failures (never SQL, never secrets). */
function knownFailure(error: unknown, t: Translate): string | null {
  const verdict = describeDatabaseError(error);
  if (verdict.label === 'not_migrated') return t('cli.failure.not_migrated');
  if (verdict.label === 'no_database') return t('cli.failure.no_database', { reason: verdict.reason });
  if (verdict.kind === 'unavailable') return t('cli.failure.unreachable', { reason: verdict.reason });
  if (verdict.kind === 'setup' || verdict.kind === 'retryable')
    return t('cli.failure.database', { reason: verdict.reason });
  return null;
}

type FailureKind = 'usage' | 'refused' | 'configuration' | 'start' | 'server' | 'environment' | 'unexpected';

export interface CliFailure {
  kind: FailureKind;
  message: string;
  status: number;
  usage?: string;
  help?: string;
  stack?: string;
}

export function describeCliFailure(
  error: unknown,
  debug: boolean,
  t: Translate = translator(DEFAULT_LANGUAGE),
): CliFailure {
  if (error instanceof UsageError) {
    const command = findCommand(error.helpCommand.split(' '));
    return {
      kind: 'usage',
      message: error.describe(t),
      status: EXIT_USAGE,
      ...(command ? { usage: usageLine(command) } : {}),
      help: `bin/invoicing ${error.helpCommand ? `${error.helpCommand} ` : ''}--help`,
    };
  }
  if (error instanceof OperationError)
    return { kind: 'refused', message: describeError(error, t), status: EXIT_FAILED };
  if (error instanceof ConfigError)
    return {
      kind: 'configuration',
      message: error.problems.map((problem) => tell(problem, t)).join('; '),
      status: EXIT_FAILED,
    };
  if (error instanceof StartRefused)
    return { kind: 'start', message: describeError(error, t), status: EXIT_FAILED };
  if (error instanceof AdminServerFailure)
    return { kind: 'server', message: error.message, status: EXIT_FAILED };
  const known = knownFailure(error, t);
  const stack = debug ? (error instanceof Error ? (error.stack ?? String(error)) : String(error)) : undefined;
  return {
    kind: known ? 'environment' : 'unexpected',
    message: known ?? t('cli.failure.unexpected'),
    status: EXIT_FAILED,
    ...(stack ? { stack } : {}),
  };
}

function report(error: unknown, argv: readonly string[], { io, t }: Run): number {
  const debug = argv.includes('--debug');
  const failure = describeCliFailure(error, debug, t);
  if (argv.includes('--json')) {
    const { status, ...rest } = failure;
    io.err(JSON.stringify({ error: { ...rest, exit_status: status } }));
    return status;
  }
  if (failure.kind === 'usage') {
    io.err(t('cli.error', { message: terminalSafe(failure.message) }));
    if (failure.usage) io.err(t('cli.error_usage', { usage: failure.usage }));
    io.err(t('cli.error_see', { help: failure.help ?? '' }));
    return failure.status;
  }
  const hint = (failure.kind === 'unexpected' || failure.kind === 'environment') && !debug;
  const message = t('cli.error', { message: terminalSafe(failure.message) });
  io.err(hint ? `${message} ${t('cli.error_debug_hint')}` : message);
  if (failure.stack) io.err(failure.stack);
  return failure.status;
}

/**
 * Runs the command line. Resolves with the exit status, or with 'serving' once `serve` is up (the
 * process then lives until a signal stops the server).
 */
export async function main(argv: string[], io: Io = processIo): Promise<number | 'serving'> {
  const choice = chooseLanguage(argv, io.env ?? process.env);
  const run: Run = { io, language: choice.language, t: translator(choice.language) };
  try {
    if (choice.problem) {
      throw new UsageError({ key: 'cli.usage.bad_language', params: { ...choice.problem } }, '');
    }
    return await dispatch(withoutLanguage(argv), run);
  } catch (error) {
    return report(error, argv, run);
  }
}

/** The command line without `--lang X` / `--lang=X` (read by chooseLanguage before anything else). */
function withoutLanguage(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') {
      words.push(...argv.slice(i));
      break;
    }
    if (word === '--lang') i++;
    else if (!word.startsWith('--lang=')) words.push(word);
  }
  return words;
}

export { COMMANDS };
