import { english, type Message } from '../i18n/message.js';

/**
 * A refusal of an operator action (bad argument, missing company...): shown to the operator as is.
 * Always a catalog text (`Message`), told in the operator's language; its `message` (logs, the
 * admin socket) is the English one.
 */
export class OperationError extends Error {
  override name = 'OperationError';
  readonly text: Message;

  constructor(text: Message) {
    super(english(text));
    this.text = text;
  }
}

/**
 * An argument that is not what the operation takes (not an id, not a date, an unknown choice): a
 * usage error of the command line (exit status 2), not a refusal of the operation.
 */
export class ArgumentError extends OperationError {
  override name = 'ArgumentError';
}
