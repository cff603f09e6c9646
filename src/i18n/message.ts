// A text of the catalog not yet told: its key and its values (a value may be a text of its own,
// e.g. who holds a lock). An error made of one keeps English as its `message` (the logs', the
// admin socket's, the console's) and is told to a person in their language.
import { type TextKey, type TextParams, type Translate, translator } from './catalog.js';

export interface Message {
  key: TextKey;
  params?: MessageParams;
}

export type MessageParams = Record<string, string | number | Message>;

/** A message told with `t`, its inner messages first. */
export function tell(message: Message, t: Translate): string {
  const params: TextParams = Object.fromEntries(
    Object.entries(message.params ?? {}).map(([name, value]) => [
      name,
      typeof value === 'object' ? tell(value, t) : value,
    ]),
  );
  return t(message.key, params);
}

/** The English of a message: what logs and other processes read. */
export function english(message: Message): string {
  return tell(message, translator('en'));
}

/** What an error says to a person: its catalog text in their language, else its own message. */
export function describeError(error: Error, t: Translate): string {
  const text = (error as { text?: Message }).text;
  return text ? tell(text, t) : error.message;
}

/** "a or b", "a, b or c": a list of choices as one text. */
export function orList(items: readonly string[]): Message | string {
  if (items.length < 2) return items.join('');
  return { key: 'list.or', params: { rest: items.slice(0, -1).join(', '), last: items.at(-1) as string } };
}
