import { createServer } from 'node:http';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '@invoicing/partner-api';

const secret = process.env.INVOICING_WEBHOOK_SECRET ?? ''; // whsec_...
// [pt] Em produção, tabelas da sua base de dados.
// [en] In production, tables of your database.
const processed = new Set<string>(); // [pt] ids dos eventos já tratados / [en] ids of the events handled
const myKeys = new Set<string>(); // [pt] Idempotency-Key das suas escritas / [en] Idempotency-Keys of your writes

createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  let event: WebhookEvent;
  try {
    // [pt] Sobre o corpo tal como chegou, antes de qualquer JSON.parse.
    // [en] On the raw body, before any JSON.parse.
    event = await verifyWebhook(Buffer.concat(chunks), req.headers, secret);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    res.writeHead(400).end();
    return;
  }
  // [pt] Responda já (2xx em menos de 10 s) e trabalhe depois.
  // [en] Answer at once (2xx within 10 s) and work afterwards.
  res.writeHead(204).end();
  // [pt] Entrega "pelo menos uma vez": ignore um id já tratado.
  // [en] Delivery is "at least once": ignore an id already handled.
  if (processed.has(event.id)) return;
  processed.add(event.id);
  // [pt] O eco de uma escrita sua: a cause traz a Idempotency-Key que enviou.
  // [en] The echo of your own write: the cause carries the Idempotency-Key you sent.
  if (event.cause.kind === 'api_key' && myKeys.has(event.cause.idempotency_key)) return;
  console.log(`${event.type} ${event.id} ${event.created_at}`);
}).listen(Number(process.env.PORT ?? 8080));
