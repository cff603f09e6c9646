// The shape of one text of the catalog: a sentence, or a sentence by count (`{count}` in it),
// its form chosen by the number: `one` for exactly 1, `other` otherwise (0 included, as Portuguese
// and English both write "0 eventos", "0 events").
export interface Plural {
  readonly one: string;
  readonly other: string;
}

export type CatalogText = string | Plural;

export type TextParams = Record<string, string | number>;
