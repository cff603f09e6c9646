/** A bad environment variable: the message names it and says what it must be (src/config.ts). */
export class ConfigError extends Error {}
