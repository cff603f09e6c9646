// issue 40: the operator's tools speak Portuguese by default, English one switch away, from one
// catalog: every text exists in both languages, with the same placeholders.
import { describe, expect, it } from 'vitest';
import { CATALOG, DEFAULT_LANGUAGE, LANGUAGES, translate } from '../../src/i18n/catalog.js';

const placeholders = (text: string) => [...text.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]).sort();

describe('the text catalog', () => {
  it('issue 40: every text exists in Portuguese and in English, non-empty, with the same placeholders', () => {
    const keys = Object.keys(CATALOG.pt).sort();
    expect(keys.length).toBeGreaterThan(50);
    for (const language of LANGUAGES) {
      expect(Object.keys(CATALOG[language]).sort(), language).toEqual(keys);
      for (const key of keys) {
        const text = CATALOG[language][key as keyof typeof CATALOG.pt];
        expect(text.trim(), `${language} ${key}`).not.toBe('');
        expect(placeholders(text), `${language} ${key}`).toEqual(
          placeholders(CATALOG.pt[key as keyof typeof CATALOG.pt]),
        );
      }
    }
  });

  it('Portuguese is the default; placeholders are filled', () => {
    expect(DEFAULT_LANGUAGE).toBe('pt');
    expect(translate('pt', 'key.revoked', { id: 7 })).toBe('Chave 7 revogada: a API já a recusa.');
    expect(translate('en', 'key.revoked', { id: 7 })).toBe('Key 7 revoked: the API refuses it now.');
  });
});
