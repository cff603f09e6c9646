import { english, type Message } from './i18n/message.js';

/**
 * A bad environment (src/config.ts): each problem names the variable and says what it must be, as a
 * text of the catalog (told to the operator in their language); `message` is the English, for logs.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';

  constructor(readonly problems: readonly Message[]) {
    super(problems.map(english).join('; '));
  }
}
