import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from invoicing_partner_api import WebhookVerificationError, verify_webhook

SECRET = os.environ["INVOICING_WEBHOOK_SECRET"]  # whsec_...
# [pt] Em produção, tabelas da sua base de dados.
# [en] In production, tables of your database.
processed = set()  # [pt] ids dos eventos já tratados / [en] ids of the events handled
my_keys = set()  # [pt] Idempotency-Key das suas escritas / [en] Idempotency-Keys of your writes


class Webhooks(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        try:
            # [pt] Sobre o corpo tal como chegou, antes de qualquer json.loads.
            # [en] On the raw body, before any json.loads.
            event = verify_webhook(body, self.headers, SECRET)
        except WebhookVerificationError:
            self.send_response(400)
            self.end_headers()
            return
        # [pt] Responda já (2xx em menos de 10 s) e trabalhe depois.
        # [en] Answer at once (2xx within 10 s) and work afterwards.
        self.send_response(204)
        self.end_headers()
        # [pt] Entrega "pelo menos uma vez": ignore um id já tratado.
        # [en] Delivery is "at least once": ignore an id already handled.
        if event["id"] in processed:
            return
        processed.add(event["id"])
        # [pt] O eco de uma escrita sua: a cause traz a Idempotency-Key que enviou.
        # [en] The echo of your own write: the cause carries the Idempotency-Key you sent.
        cause = event.get("cause") or {}
        if cause.get("kind") == "api_key" and cause.get("idempotency_key") in my_keys:
            return
        print(event["type"], event["id"], event["created_at"], flush=True)


ThreadingHTTPServer(("", int(os.environ.get("PORT", "8080"))), Webhooks).serve_forever()
