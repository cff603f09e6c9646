// issue 40, goal 8: the operator's tools speak Portuguese, refusals included. Every refusal of an
// operation (and of its arguments, the webhook model's and the URL checks the operations pass on)
// is thrown as a catalog text, never as an English sentence the console and the command line
// could only show as is; and every text of src/i18n/operation-refusals.ts is one some code throws.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { translator } from '../../src/i18n/catalog.js';
import { describeError } from '../../src/i18n/message.js';
import { operationRefusalsPt } from '../../src/i18n/operation-refusals.js';
import { OperationError } from '../../src/operations/errors.js';
import { filesUnder } from '../helpers/files.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** The refusals an operator reads: the operations' own, and those they pass on. */
const REFUSAL = /new (OperationError|ArgumentError|UntrustedSocket|WebhookRefusal|UnsafeUrl)\(\s*(\S)/g;

describe('refusals in the catalog', () => {
  const files = filesUnder(SRC, '.ts').map((file) => ({
    name: relative(SRC, file),
    text: readFileSync(file, 'utf8'),
  }));

  it("issue 40, the operator's tools speak Portuguese: no refusal is thrown with a plain English sentence", () => {
    const thrown = files.flatMap(({ name, text }) =>
      [...text.matchAll(REFUSAL)].map((match) => ({
        at: `${name}:${text.slice(0, match.index).split('\n').length}`,
        opens: match[2],
      })),
    );
    expect(thrown.length).toBeGreaterThan(100);
    const sentences = thrown.filter(({ opens }) => ['"', "'", '`'].includes(opens as string));
    expect(sentences.map(({ at }) => at)).toEqual([]);
  });

  it('every text of the refusals catalog is one the code throws (no text left behind)', () => {
    const code = files
      .filter(({ name }) => name !== 'i18n/operation-refusals.ts')
      .map(({ text }) => text)
      .join('\n');
    const unused = Object.keys(operationRefusalsPt).filter((key) => !code.includes(`'${key}'`));
    expect(unused).toEqual([]);
  });

  it('a refusal keeps its English as its message and is told in Portuguese, its inner texts too', () => {
    const error = new OperationError({
      key: 'refused.webhook_setting',
      params: {
        reason: { key: 'url.https_unless_loopback' },
        whose: { key: 'refused.setting_of_command' },
      },
    });
    expect(error.message).toBe(
      'the URL must use https (plain http only to loopback with WEBHOOK_ALLOW_HTTP=true) (the server delivers with its own setting: set it for the server too)',
    );
    expect(describeError(error, translator('pt'))).toBe(
      'o URL tem de usar https (http simples só para loopback com WEBHOOK_ALLOW_HTTP=true) (o servidor entrega com a sua própria configuração: defina-a também para o servidor)',
    );
  });
});
