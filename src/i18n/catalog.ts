// One catalog of the texts people read in the operator's tools, the support console
// (src/i18n/console.ts) and the command line (src/i18n/cli.ts, cli-refusals.ts, cli-help.ts), with the
// refusals of the operations both show (src/i18n/operation-refusals.ts) and what is wrong with the
// environment a process starts with (src/i18n/config-problems.ts): Portuguese by default,
// English one switch away. Every text exists in both languages (the types say so;
// test/i18n/catalog.unit.test.ts checks the placeholders and plural forms too). `{name}` in a text
// is replaced by `params.name`; a text with plural forms picks one by `params.count`.
import { cliEn, cliPt } from './cli.js';
import { cliHelpEn, cliHelpPt } from './cli-help.js';
import { cliRefusalsEn, cliRefusalsPt } from './cli-refusals.js';
import { configProblemsEn, configProblemsPt } from './config-problems.js';
import { consoleEn, consolePt } from './console.js';
import { operationRefusalsEn, operationRefusalsPt } from './operation-refusals.js';
import type { CatalogText, Plural, TextParams } from './text.js';

export type { CatalogText, Plural, TextParams } from './text.js';

export const LANGUAGES = ['pt', 'en'] as const;
export type UiLanguage = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: UiLanguage = 'pt';

const pt = {
  ...consolePt,
  ...cliPt,
  ...cliRefusalsPt,
  ...operationRefusalsPt,
  ...cliHelpPt,
  ...configProblemsPt,
};

export type TextKey = keyof typeof pt;

const en: Record<TextKey, CatalogText> = {
  ...consoleEn,
  ...cliEn,
  ...cliRefusalsEn,
  ...operationRefusalsEn,
  ...cliHelpEn,
  ...configProblemsEn,
};

export const CATALOG: Record<UiLanguage, Record<TextKey, CatalogText>> = { pt, en };

export function isLanguage(value: unknown): value is UiLanguage {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export function isTextKey(value: unknown): value is TextKey {
  return typeof value === 'string' && Object.hasOwn(pt, value);
}

export function isPlural(text: CatalogText): text is Plural {
  return typeof text !== 'string';
}

/** The text in `language`, its form chosen by `params.count`, its `{name}` placeholders filled. */
export function translate(language: UiLanguage, key: TextKey, params: TextParams = {}): string {
  const text = CATALOG[language][key];
  const sentence = isPlural(text) ? (Number(params.count) === 1 ? text.one : text.other) : text;
  return sentence.replace(/\{([a-z_]+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/** A text lookup bound to one language. */
export type Translate = (key: TextKey, params?: TextParams) => string;

export function translator(language: UiLanguage): Translate {
  return (key, params) => translate(language, key, params);
}
