// The reference in two languages and its code samples, from one source each:
// - openapi.en.json is current (`npm run openapi` writes it with openapi.json; its Redocly lint
//   is in test/openapi.unit.test.ts, with openapi.json's), and is openapi.json with every
//   description in English: the catalog (src/docs/reference-en.ts) has an entry for each Portuguese text and none
//   that no text uses; error messages and examples stay as the API sends them;
// - every operation shows the sample of its operationId in curl, TypeScript, PHP and Python,
//   with the comments of the document's language; the sample files are exactly those of the table
//   (src/docs/samples.ts) and use the example ids the table says (the ones CI replaces);
// - every guide sample appears in the guide of both languages.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { proseOf } from '../../src/docs/reference.js';
import { ENGLISH } from '../../src/docs/reference-en.js';
import {
  EXAMPLE_IDS,
  type ExampleRecord,
  localize,
  renderedSample,
  SAMPLE_LANGUAGES,
  SAMPLES,
  sampleSource,
} from '../../src/docs/samples.js';
import {
  generateOpenApiDocuments,
  generateRouteDocument,
  serializeDocument,
} from '../../src/openapi-document.js';
import { webhookProblems } from '../helpers/conformance.js';
import { testStorage } from '../helpers/database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// biome-ignore lint/suspicious/noExplicitAny: JSON documents walked field by field
type Json = Record<string, any>;

const operationsOf = (document: Json) =>
  Object.values(document.paths as Json).flatMap((methods) => Object.values(methods as Json)) as Json[];

describe.runIf(testStorage() === 'pglite')('the reference in Portuguese and English, with samples', () => {
  let pt: Json;
  let en: Json;
  let base: Json;
  beforeAll(async () => {
    ({ pt, en } = await generateOpenApiDocuments());
    base = await generateRouteDocument();
  });

  it('openapi.en.json is up to date (npm run openapi)', () => {
    expect(readFileSync(`${ROOT}openapi.en.json`, 'utf8')).toBe(serializeDocument(en));
    expect(readFileSync(`${ROOT}openapi.json`, 'utf8')).toBe(serializeDocument(pt));
  });

  it('has one English text for each Portuguese one, and none that no text uses', () => {
    const portuguese = proseOf(base);
    expect([...portuguese].filter((text) => ENGLISH[text] === undefined)).toEqual([]);
    expect(Object.keys(ENGLISH).filter((text) => !portuguese.has(text))).toEqual([]);
    // Nothing of the Portuguese prose is left in the English document.
    const left = [...proseOf(en)].filter((text) => ENGLISH[text] !== undefined && ENGLISH[text] !== text);
    expect(left).toEqual([]);
    expect(en.info.title).toBe('Partner API v1 — invoicing service');
    expect(en.paths['/customers'].get.summary).toBe('List customers');
    expect(pt.paths['/customers'].get.summary).toBe('Listar clientes');
  });

  it('is the same document but for its prose: schemas, codes and error examples as the API sends them', () => {
    const strip = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(strip);
      if (typeof node !== 'object' || node === null) return node;
      return Object.fromEntries(
        Object.entries(node)
          .filter(([key]) => key !== 'description' && key !== 'summary' && key !== 'x-codeSamples')
          .map(([key, value]) => [key, key === 'examples' || key === 'example' ? value : strip(value)]),
      );
    };
    const { title: _ptTitle, contact: _ptContact, ...ptInfo } = pt.info;
    const { title: _enTitle, contact: _enContact, ...enInfo } = en.info;
    expect(strip({ ...en, info: enInfo })).toEqual(strip({ ...pt, info: ptInfo }));
    const notFound = (document: Json) =>
      document.paths['/customers/{id}'].get.responses['404'].content['application/json'].examples
        .resource_not_found.value.error.message;
    expect(notFound(en)).toBe(notFound(pt));
  });

  it('shows every operation in curl, TypeScript, PHP and Python, from its sample, in its language', () => {
    for (const [document, lang] of [
      [pt, 'pt'],
      [en, 'en'],
    ] as const) {
      for (const operation of operationsOf(document)) {
        const samples = operation['x-codeSamples'] as { lang: string; label: string; source: string }[];
        expect(samples.map((sample) => sample.label)).toEqual(['curl', 'TypeScript', 'PHP', 'Python']);
        samples.forEach((sample, i) => {
          const language = SAMPLE_LANGUAGES[i]!;
          expect(sample.source).toBe(renderedSample(operation.operationId, language.id, lang));
          expect(sample.source).not.toMatch(/\[(pt|en)\]/);
        });
      }
    }
    const ping = (document: Json) =>
      document.paths['/ping'].get['x-codeSamples'].map((sample: Json) => sample.source).join('\n');
    expect(ping(pt)).toContain('A chave e o endereço vêm do ambiente');
    expect(ping(pt)).not.toContain('The key and the address come from the environment');
    expect(ping(en)).toContain('The key and the address come from the environment');
    expect(ping(en)).not.toContain('A chave e o endereço vêm do ambiente');
  });

  it('has exactly the sample files of the table, each using the example ids it declares', () => {
    const expected = SAMPLES.flatMap((sample) =>
      SAMPLE_LANGUAGES.map((language) => `${sample.id}.${language.id}`),
    );
    expect(
      // Files only: a folder holds a sample that is no reference or guide snippet (first-import/,
      // run by test/clients/kit/first-import.test.ts).
      readdirSync(`${ROOT}docs/samples`, { withFileTypes: true })
        .filter((entry) => entry.isFile() && entry.name !== 'README.md')
        .map((entry) => entry.name)
        .sort(),
    ).toEqual(expected.sort());
    for (const sample of SAMPLES) {
      for (const language of SAMPLE_LANGUAGES) {
        const source = sampleSource(sample.id, language.id);
        for (const [record, id] of Object.entries(EXAMPLE_IDS)) {
          const uses = sample.uses.includes(record as ExampleRecord);
          expect(new RegExp(`\\b${id}\\b`).test(source), `${sample.id}.${language.id} ${record}`).toBe(uses);
        }
        expect(source, `${sample.id}.${language.id}`).not.toMatch(/svc_sk_(live|test)_[A-Za-z0-9]{8}/);
      }
    }
  });

  it('shows for each webhook an example that matches its own schema, caused as such events are', () => {
    const headers = {
      'webhook-id': 'evt_5f0c1e2d3b4a59687766a1b2',
      'webhook-timestamp': '1795000000',
      'webhook-signature': 'v1,c2lnbmF0dXJl',
    };
    for (const [type, entry] of Object.entries(pt.webhooks as Json)) {
      const example = entry.post.requestBody.content['application/json'].example;
      expect(example.type).toBe(type);
      expect(webhookProblems({ headers, body: JSON.stringify(example) }), type).toEqual([]);
      expect(en.webhooks[type].post.requestBody.content['application/json'].example).toEqual(example);
    }
    const paid = pt.webhooks['invoice.paid'].post.requestBody.content['application/json'].example.data;
    expect([paid.status, paid.remaining_amount, paid.paid_amount]).toEqual([
      'paid',
      '0.00',
      paid.grand_total,
    ]);
  });

  it('shows a comment in the language of the page: tagged lines, and both halves of a bilingual one', () => {
    const source = ['# [pt] Olá', '# [en] Hello', 'x = 1  # [pt] um / [en] one', '# untagged', ''].join('\n');
    expect(localize(source, 'py', 'pt')).toBe('# Olá\nx = 1  # um\n# untagged\n');
    expect(localize(source, 'py', 'en')).toBe('# Hello\nx = 1  # one\n# untagged\n');
    expect(localize('// [en] Hi\nf();\n', 'ts', 'pt')).toBe('f();\n');
  });

  it('shows every guide sample in the guide or the webhooks page of both languages', () => {
    const pages = {
      pt: ['guia.md', 'webhooks.md']
        .map((file) => readFileSync(`${ROOT}docs/site/pt/${file}`, 'utf8'))
        .join(),
      en: ['guide.md', 'webhooks.md']
        .map((file) => readFileSync(`${ROOT}docs/site/en/${file}`, 'utf8'))
        .join(),
    };
    for (const sample of SAMPLES.filter((one) => !one.operation)) {
      for (const [lang, text] of Object.entries(pages)) {
        expect(text, `${sample.id} in ${lang}`).toContain(`\`\`\`samples\n${sample.id}\n\`\`\``);
      }
    }
  });
});
