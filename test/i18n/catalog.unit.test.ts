// issue 40: the operator's tools speak Portuguese by default, English one switch away, from one
// catalog (the console's texts and the command line's): every text exists in both languages, with
// the same placeholders and the same plural forms.
import { describe, expect, it } from 'vitest';
import {
  CATALOG,
  type CatalogText,
  DEFAULT_LANGUAGE,
  isPlural,
  LANGUAGES,
  type TextKey,
  translate,
} from '../../src/i18n/catalog.js';

const placeholders = (text: string) => [...text.matchAll(/\{([a-z_0-9]+)\}/g)].map((m) => m[1]).sort();

/** A text's forms: one sentence, or its plural forms (each must hold {count}). */
const forms = (text: CatalogText): string[] => (isPlural(text) ? [text.one, text.other] : [text]);

describe('the text catalog', () => {
  it("issue 40, the operator's tools speak Portuguese: every text (console and command line) exists in Portuguese and in English, non-empty, with the same placeholders and forms", () => {
    const keys = Object.keys(CATALOG.pt).sort() as TextKey[];
    expect(keys.length).toBeGreaterThan(300);
    // The command line's texts are in it: messages, table headers, the start banner and the help.
    for (const prefix of ['cli.', 'col.', 'serve.', 'cmd.', 'help.', 'endpoint.']) {
      expect(
        keys.some((key) => key.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
    for (const language of LANGUAGES) {
      expect(Object.keys(CATALOG[language]).sort(), language).toEqual(keys);
      for (const key of keys) {
        const text = CATALOG[language][key];
        const reference = CATALOG.pt[key];
        expect(isPlural(text), `${language} ${key}: plural in both languages or in neither`).toBe(
          isPlural(reference),
        );
        for (const form of forms(text)) {
          expect(form.trim(), `${language} ${key}`).not.toBe('');
          expect(placeholders(form), `${language} ${key}`).toEqual(
            placeholders(forms(reference)[0] as string),
          );
        }
      }
    }
  });

  it('Portuguese is the default; placeholders are filled', () => {
    expect(DEFAULT_LANGUAGE).toBe('pt');
    expect(translate('pt', 'key.revoked', { id: 7 })).toBe('Chave 7 revogada: a API já a recusa.');
    expect(translate('en', 'key.revoked', { id: 7 })).toBe('Key 7 revoked: the API refuses it now.');
  });

  it("issue 40, the operator's tools speak Portuguese: a count picks its form, 1 the singular, 0 and more the plural", () => {
    expect(translate('pt', 'endpoint.replayed', { count: 1 })).toBe('1 evento posto de novo na fila.');
    expect(translate('pt', 'endpoint.replayed', { count: 0 })).toBe('0 eventos postos de novo na fila.');
    expect(translate('pt', 'endpoint.replayed', { count: 3 })).toBe('3 eventos postos de novo na fila.');
    expect(translate('en', 'endpoint.replayed', { count: 1 })).toBe('1 event queued again.');
    expect(translate('en', 'endpoint.replayed', { count: 2 })).toBe('2 events queued again.');
    expect(translate('pt', 'cli.staff.disabled', { id: 4, email: 'ana@example.co.mz', count: 1 })).toBe(
      'Conta 4 da equipa (ana@example.co.mz) desativada; 1 sessão terminada.',
    );
  });
});
