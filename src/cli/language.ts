// The language of the command line's texts: `--lang pt|en` (anywhere on the line), else
// INVOICING_LANG, else Portuguese. LANG and LC_* are ignored on purpose: on a server they say how
// the machine was installed (often C.UTF-8 or en_US.UTF-8 from an image), not what the operator
// reads, so they would turn the tools English behind the operator's back. Only texts change:
// `--json`, field names, error codes, exit statuses, ids and keys are the same in both languages.
import { DEFAULT_LANGUAGE, isLanguage, LANGUAGES, type UiLanguage } from '../i18n/catalog.js';

export const LANGUAGE_VARIABLE = 'INVOICING_LANG';

export type LanguageChoice =
  | { language: UiLanguage; problem?: never }
  /** A value that is no language: a usage error, told in `language` (the variable's, or the default). */
  | { language: UiLanguage; problem: { source: string; value: string; known: string } };

/** The value of the last `--lang X` or `--lang=X` before a `--`, if any. */
function flagValue(argv: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') break;
    if (word === '--lang') value = argv[i + 1] ?? '';
    else if (word.startsWith('--lang=')) value = word.slice('--lang='.length);
  }
  return value;
}

export function chooseLanguage(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): LanguageChoice {
  const known = LANGUAGES.join(', ');
  const variable = env[LANGUAGE_VARIABLE]?.trim();
  const fromVariable = variable === undefined || variable === '' ? undefined : variable;
  const fallback = isLanguage(fromVariable) ? fromVariable : DEFAULT_LANGUAGE;
  const flag = flagValue(argv);
  if (flag !== undefined) {
    if (isLanguage(flag)) return { language: flag };
    return { language: fallback, problem: { source: '--lang', value: flag, known } };
  }
  if (fromVariable === undefined) return { language: DEFAULT_LANGUAGE };
  if (isLanguage(fromVariable)) return { language: fromVariable };
  return { language: DEFAULT_LANGUAGE, problem: { source: LANGUAGE_VARIABLE, value: fromVariable, known } };
}
