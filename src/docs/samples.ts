// The code samples of the docs: one source for the reference (openapi.json's `x-codeSamples`), the
// guide and the webhooks page, in curl, TypeScript, PHP and Python. Each sample is four files,
// docs/samples/<id>.{sh,ts,php,py}, that run as they are shown (test/clients/kit/samples.test.ts runs
// every one against a real server, `npm run test:clients`). The conventions, which
// docs/samples/README.md explains to whoever writes one:
// - the address and the key come from PARTNER_API_URL and PARTNER_API_KEY;
// - ids are the examples of EXAMPLE_IDS; the test replaces them with ids that exist;
// - a comment line starting with `[pt]` or `[en]` is shown on the pages of that language only, and
//   a comment `[pt] texto / [en] text` shows the half of the page's language.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Language } from './error-catalog.js';

/** docs/samples, from src/docs and from dist/docs alike. */
export const SAMPLES_DIR = fileURLToPath(new URL('../../docs/samples', import.meta.url));

export const SAMPLE_LANGUAGES = [
  { id: 'sh', label: 'curl', lang: 'Shell', comment: '#' },
  { id: 'ts', label: 'TypeScript', lang: 'TypeScript', comment: '//' },
  { id: 'php', label: 'PHP', lang: 'PHP', comment: '//' },
  { id: 'py', label: 'Python', lang: 'Python', comment: '#' },
] as const;
export type SampleLanguage = (typeof SAMPLE_LANGUAGES)[number]['id'];

/** The ids the samples show; whoever runs them puts real ones in their place. */
export const EXAMPLE_IDS = { customer: 1042, product: 2051, invoice: 4120, payment: 2207 } as const;
export type ExampleRecord = keyof typeof EXAMPLE_IDS;

export interface Sample {
  id: string;
  /** The operation whose reference entry shows it (its operationId is the sample's id). */
  operation: boolean;
  /** The example ids it uses. */
  uses: readonly ExampleRecord[];
}

const operation = (id: string, uses: readonly ExampleRecord[] = []): Sample => ({
  id,
  operation: true,
  uses,
});
const guide = (id: string, uses: readonly ExampleRecord[] = []): Sample => ({ id, operation: false, uses });

export const SAMPLES: readonly Sample[] = [
  operation('getPing'),
  operation('listCustomers'),
  operation('createCustomer'),
  operation('getCustomer', ['customer']),
  operation('updateCustomer', ['customer']),
  operation('listProducts'),
  operation('createProduct'),
  operation('getProduct', ['product']),
  operation('updateProduct', ['product']),
  operation('listInvoices', ['customer']),
  operation('createInvoice', ['customer', 'product']),
  operation('getInvoice', ['invoice']),
  operation('listPayments', ['invoice']),
  operation('getPayment', ['payment']),
  guide('pagination'),
  guide('incrementalSync'),
  guide('idempotency'),
  guide('retries'),
  guide('errors', ['customer', 'product']),
  guide('webhooks'),
];

export function sampleById(id: string): Sample {
  const sample = SAMPLES.find((candidate) => candidate.id === id);
  if (!sample) throw new Error(`no code sample "${id}" (src/docs/samples.ts)`);
  return sample;
}

/** A sample's file as it is (what CI runs). */
export function sampleSource(id: string, language: SampleLanguage, dir = SAMPLES_DIR): string {
  sampleById(id);
  return readFileSync(join(dir, `${id}.${language}`), 'utf8');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The source with the comments of the other language dropped and the language tags taken off. */
export function localize(source: string, language: SampleLanguage, lang: Language): string {
  const marker = escapeRegExp(SAMPLE_LANGUAGES.find((one) => one.id === language)!.comment);
  const other = lang === 'pt' ? 'en' : 'pt';
  const bilingual = new RegExp(`(${marker} )\\[pt\\] (.*?) / \\[en\\] (.*)$`);
  const tagged = new RegExp(`^(\\s*${marker} )\\[(pt|en)\\] ?`);
  const lines: string[] = [];
  for (const line of source.split('\n')) {
    const both = bilingual.exec(line);
    if (both) {
      lines.push(`${line.slice(0, both.index)}${both[1]}${lang === 'pt' ? both[2] : both[3]}`);
      continue;
    }
    const one = tagged.exec(line);
    if (one?.[2] === other) continue;
    lines.push(one ? `${one[1]}${line.slice(one[0].length)}` : line);
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** A sample as a page in `lang` shows it. */
export function renderedSample(
  id: string,
  language: SampleLanguage,
  lang: Language,
  dir = SAMPLES_DIR,
): string {
  return localize(sampleSource(id, language, dir), language, lang);
}

/** The four variants of a sample for openapi.json's `x-codeSamples` (which Redoc shows). */
export function codeSamples(id: string, lang: Language): { lang: string; label: string; source: string }[] {
  return SAMPLE_LANGUAGES.map((language) => ({
    lang: language.lang,
    label: language.label,
    source: renderedSample(id, language.id, lang),
  }));
}
