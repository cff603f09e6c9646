// The webhook events as partners read about them, in Portuguese and English side by side: what
// openapi.json's `webhooks` says of each type (src/docs/reference.ts) and the table of the webhooks
// page (docs/site/*/webhooks.md, ```events block). Typed by the service's own list of types
// (src/webhooks/event-types.ts), so a new type that is not described here does not compile.
import { EVENT_TYPES, type EventType, PING_EVENT } from '../webhooks/event-types.js';
import type { Language } from './error-catalog.js';

export type Text = Record<Language, string>;

/** The resource schema (components.schemas) an event's `data` is, or null for the ping's own. */
export type EventDataSchema = 'Invoice' | 'Payment' | 'Customer' | 'Product' | null;

export interface EventDescription {
  data: EventDataSchema;
  when: Text;
}

export type WebhookType = EventType | typeof PING_EVENT;

export const WEBHOOK_EVENTS: Record<WebhookType, EventDescription> = {
  'invoice.created': {
    data: 'Invoice',
    when: {
      pt: 'Um rascunho foi criado pela API (`POST /invoices`).',
      en: 'A draft was created through the API (`POST /invoices`).',
    },
  },
  'invoice.issued': {
    data: 'Invoice',
    when: {
      pt: 'Uma pessoa emitiu um rascunho na aplicação: código fiscal, estado `unpaid`.',
      en: 'A person issued a draft in the application: fiscal code, status `unpaid`.',
    },
  },
  'invoice.partially_paid': {
    data: 'Invoice',
    when: { pt: 'Um recibo pagou parte da factura.', en: 'A receipt paid part of the invoice.' },
  },
  'invoice.paid': {
    data: 'Invoice',
    when: {
      pt: 'Um recibo pagou o resto (ou foi emitida uma factura de total zero).',
      en: 'A receipt paid the rest (or an invoice of zero total was issued).',
    },
  },
  'invoice.cancelled': {
    data: 'Invoice',
    when: { pt: 'Uma factura foi anulada.', en: 'An invoice was cancelled.' },
  },
  'payment.created': {
    data: 'Payment',
    when: {
      pt: 'Foi registado um recibo de uma factura da empresa; segue-se `invoice.partially_paid` ou `invoice.paid`.',
      en: "A receipt of one of the company's invoices was recorded; `invoice.partially_paid` or `invoice.paid` follows.",
    },
  },
  'customer.created': {
    data: 'Customer',
    when: { pt: 'Um cliente foi criado pela API.', en: 'A customer was created through the API.' },
  },
  'customer.updated': {
    data: 'Customer',
    when: {
      pt: 'Um cliente foi alterado pela API (um `PUT` que não muda nada não gera evento).',
      en: 'A customer was changed through the API (a `PUT` that changes nothing sends no event).',
    },
  },
  'product.created': {
    data: 'Product',
    when: { pt: 'Um produto foi criado pela API.', en: 'A product was created through the API.' },
  },
  'product.updated': {
    data: 'Product',
    when: { pt: 'Um produto foi alterado pela API.', en: 'A product was changed through the API.' },
  },
  ping: {
    data: null,
    when: {
      pt: 'O suporte testou o endpoint (`webhooks test`): só para esse endpoint, qualquer que seja a sua lista de eventos, e nunca repetido.',
      en: 'Our support team tested the endpoint (`webhooks test`): to that endpoint only, whatever its list of events, and never retried.',
    },
  },
};

/** Every type, in the order of the service's list, the ping last. */
export const WEBHOOK_TYPES: readonly WebhookType[] = [...EVENT_TYPES, PING_EVENT];

/** The words of the envelope, its headers and its answers, in both languages. */
export const WEBHOOK_TEXT = {
  tag: {
    pt: 'Eventos que o serviço envia (`POST`) para o endereço do parceiro, assinados segundo Standard Webhooks. Os endpoints são configurados pelo suporte; veja a página Webhooks do site da documentação.',
    en: "Events the service sends (`POST`) to the partner's address, signed following Standard Webhooks. Endpoints are set up by our support team; see the Webhooks page of the docs site.",
  },
  description: {
    pt: 'Cada entrega é um `POST` com um evento em JSON, assinado (cabeçalhos `webhook-*`). Verifique a assinatura sobre o corpo tal como chegou, responda 2xx em menos de 10 s e trate depois. Entrega pelo menos uma vez: ignore um `id` já tratado.',
    en: 'Each delivery is a `POST` with one event in JSON, signed (`webhook-*` headers). Verify the signature on the raw body, answer 2xx within 10 s and do the work afterwards. Delivery is at least once: ignore an `id` you already handled.',
  },
  envelope: {
    pt: 'Um evento: o envelope e, em `data`, o recurso.',
    en: 'An event: the envelope and, in `data`, the resource.',
  },
  id: {
    pt: 'O id do evento (`evt_...`), igual ao cabeçalho webhook-id; o mesmo em cada nova tentativa e reenvio: guarde-o para ignorar repetições.',
    en: 'The event id (`evt_...`), equal to the webhook-id header; the same on every retry and resend: keep it to drop repeats.',
  },
  type: { pt: 'O tipo do evento.', en: 'The type of the event.' },
  createdAt: {
    pt: 'Quando aconteceu a mudança (ISO 8601 com fuso).',
    en: 'When the change happened (ISO 8601 with offset).',
  },
  data: {
    pt: 'O recurso tal como a leitura individual da API (`GET /<recurso>/{id}`) o devolvia no momento da mudança.',
    en: "The resource as the API's single read (`GET /<resource>/{id}`) returned it at the moment of the change.",
  },
  pingData: {
    pt: 'O endpoint testado e uma mensagem.',
    en: 'The endpoint tested and a message.',
  },
  endpointId: { pt: 'O id do endpoint testado.', en: 'The id of the endpoint tested.' },
  message: { pt: 'Uma mensagem para pessoas.', en: 'A message for people.' },
  cause: {
    pt: 'Quem causou o evento: uma escrita da API (com o seu X-Request-Id e Idempotency-Key), um operador ou o próprio serviço. Compare `idempotency_key` ou `request_id` com os das suas escritas para ignorar os ecos do que você mesmo mudou.',
    en: 'Who caused the event: an API write (with its X-Request-Id and Idempotency-Key), an operator, or the service itself. Compare `idempotency_key` or `request_id` with those of your writes to drop the echoes of what you changed yourself.',
  },
  causeApiKey: {
    pt: 'Uma escrita (`POST` ou `PUT`) feita com uma chave de API da empresa.',
    en: "A write (`POST` or `PUT`) made with one of the company's API keys.",
  },
  apiKeyId: { pt: 'O id da chave.', en: 'The id of the key.' },
  apiKeyLast4: {
    pt: 'Os últimos 4 caracteres da chave, para a reconhecer.',
    en: 'The last 4 characters of the key, to recognise it.',
  },
  requestId: {
    pt: 'O X-Request-Id da resposta a essa escrita.',
    en: 'The X-Request-Id of the answer to that write.',
  },
  idempotencyKey: {
    pt: 'A Idempotency-Key que essa escrita enviou (todas as escritas da API a levam).',
    en: 'The Idempotency-Key that write sent (every write of the API carries one).',
  },
  causeOperator: {
    pt: 'Uma acção de uma pessoa do serviço (por exemplo emitir uma factura ou registar um recibo).',
    en: 'An action of a person of the service (say issuing an invoice or recording a receipt).',
  },
  operator: { pt: 'Quem.', en: 'Who.' },
  command: { pt: 'O quê, por exemplo `invoices issue`.', en: 'What, for example `invoices issue`.' },
  causeSystem: {
    pt: 'O próprio serviço (por exemplo o teste de um endpoint).',
    en: 'The service itself (say the test of an endpoint).',
  },
  systemName: {
    pt: 'O que o fez, por exemplo `webhooks test`.',
    en: 'What did it, for example `webhooks test`.',
  },
  webhookId: {
    pt: 'O id do evento (`evt_...`): o mesmo em cada nova tentativa e reenvio.',
    en: 'The event id (`evt_...`): the same on every retry and resend.',
  },
  webhookTimestamp: {
    pt: 'Segundos desde 1970-01-01 UTC em que esta tentativa foi feita. Recuse uma diferença de mais de 5 minutos para o seu relógio.',
    en: 'Seconds since 1970-01-01 UTC when this attempt was made. Refuse more than 5 minutes away from your clock.',
  },
  webhookSignature: {
    pt: '`v1,<base64>`: HMAC-SHA256 de `{webhook-id}.{webhook-timestamp}.{corpo}` com os bytes (base64) do seu segredo depois de `whsec_`. Durante uma rotação do segredo, duas assinaturas separadas por um espaço: basta uma.',
    en: '`v1,<base64>`: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed with the (base64) bytes of your secret after `whsec_`. During a secret rotation, two signatures separated by a space: one is enough.',
  },
  accepted: {
    pt: 'Recebido: qualquer resposta 2xx em menos de 10 segundos. Trate o evento depois de responder.',
    en: 'Received: any 2xx answer within 10 seconds. Handle the event after answering.',
  },
  refused: {
    pt: 'Assinatura inválida (ou qualquer outra resposta que não 2xx, ou nenhuma em 10 s): a tentativa falhou e é repetida mais tarde.',
    en: 'Invalid signature (or any answer other than 2xx, or none within 10 s): the attempt failed and is tried again later.',
  },
} satisfies Record<string, Text>;
