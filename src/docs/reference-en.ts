// The English of openapi.en.json: each Portuguese description or summary of the document the route
// schemas make (src/*/schemas.ts, src/*/routes.ts, src/openapi.ts), beside its English. A text
// changed or added in Portuguese without its English here stops `npm run openapi` with the text
// named; an entry no text uses any more fails test/docs/reference.test.ts. Error messages and
// hints, and example values, stay in Portuguese in both documents (they are what the API sends).
export const ENGLISH: Readonly<Record<string, string>> = {
  'Ler e escrever os dados de uma empresa: clientes, produtos, facturas (rascunhos) e recibos.':
    'Read and write the data of one company: customers, products, invoices (drafts) and receipts.',
  'API servidor-a-servidor com que um sistema externo (ERP, loja, ponto de venda) lê e escreve os dados de UMA empresa. Autenticação com `Authorization: Bearer svc_sk_live_...` (ou `svc_sk_test_...`, só leitura). Todo o POST e PUT leva `Idempotency-Key`. Dinheiro: as respostas trazem texto decimal com duas casas (`"1250.00"`) e os pedidos levam números JSON (`"price": 1250.5`; `"price": "450.00"` é um 422); datas e horas são ISO 8601 com fuso. O guia e o catálogo de erros estão em http://127.0.0.1:3001/.':
    'A server-to-server API through which an external system (ERP, shop, point of sale) reads and writes the data of ONE company. Authentication with `Authorization: Bearer svc_sk_live_...` (or `svc_sk_test_...`, read only). Every POST and PUT carries an `Idempotency-Key`. Money: responses carry decimal text with two places (`"1250.00"`) and requests take JSON numbers (`"price": 1250.5`; `"price": "450.00"` is a 422); dates and times are ISO 8601 with an offset. The guide and the error catalog are at http://127.0.0.1:3001/.',
  'Chave de API da empresa: `svc_sk_live_...` (dados reais, leitura e escrita conforme as permissões) ou `svc_sk_test_...` (só GET).':
    "The company's API key: `svc_sk_live_...` (real data, reads and writes as its scopes allow) or `svc_sk_test_...` (GET only).",
  'Um cliente da empresa da chave, ou um cliente global (visível a todas, não editável).':
    "A customer of the key's company, or a global customer (visible to every company, not editable).",
  '`type` por omissão `individual`; o e-mail é único entre os clientes da empresa.':
    "`type` defaults to `individual`; the email is unique among the company's customers.",
  'O cliente da factura.': "The invoice's customer.",
  'Só os campos enviados mudam; `null` apaga um campo opcional.':
    'Only the fields sent change; `null` clears an optional field.',
  'Toda a falha da API tem este envelope.': 'Every failure of the API has this envelope.',
  'O que aconteceu; decida sempre por este campo.': 'What happened; always branch on this field.',
  'Explicação para pessoas; o texto pode mudar.': 'An explanation for people; the text may change.',
  'O que fazer; o texto pode mudar.': 'What to do; the text may change.',
  'A entrada deste código no catálogo de erros.': "This code's entry in the error catalog.",
  'Igual ao cabeçalho X-Request-Id.': 'Equal to the X-Request-Id header.',
  'Só em validation_failed: caminho do campo (`items.0.price`, a partir de 0) -> mensagens.':
    'Only in validation_failed: field path (`items.0.price`, counting from 0) -> messages.',
  'A resposta genérica de uma falha interna (src/http/error-handler.ts).':
    'The generic answer of an internal failure (src/http/error-handler.ts).',
  'A resposta genérica de uma espera limitada da base de dados que expirou (src/http/error-handler.ts).':
    'The generic answer of a bounded database wait that expired (src/http/error-handler.ts).',
  'Uma factura com as suas linhas (leitura individual e criação).':
    'An invoice with its lines (single read and creation).',
  'Cria sempre um rascunho. `currency` por omissão MZN; `due_date` por omissão a data da factura. No exemplo, a primeira linha vai sem imposto (`"tax_id": null`) e a segunda leva o do produto (IVA 16%), por omitir `tax_id`.':
    'Always creates a draft. `currency` defaults to MZN; `due_date` defaults to the invoice date. In the example the first line goes untaxed (`"tax_id": null`) and the second takes the product\'s tax (IVA 16%), as it leaves `tax_id` out.',
  'Uma linha da factura.': 'A line of the invoice.',
  'Obrigatório: um produto desta empresa (um serviço também é um produto, por exemplo NON_INVENTORY). Um id inexistente ou de outra empresa responde 422 com o índice da linha.':
    "Required: a product of this company (a service is a product too, for example NON_INVENTORY). An id that does not exist or belongs to another company answers 422 with the line's index.",
  'O imposto da linha. Omitido: o imposto do próprio produto (o que dá o seu `tax_rate`), ou nenhum se o produto não tem. `null` enviado explicitamente: sem imposto. Um id: esse imposto (desta empresa ou global).':
    "The line's tax. Left out: the product's own tax (the one that gives its `tax_rate`), or none if the product has none. `null` sent explicitly: no tax. An id: that tax (of this company or global).",
  'Uma linha: `product_id`, `quantity` e `price` são obrigatórios (o preço nunca vem do produto); `discount` é uma percentagem; sem `tax_id` a linha leva o imposto do produto, com `"tax_id": null` nenhum. O subtotal (quantidade x preço) e o total de cada linha devem ser menores que 10^16 (senão 422 em `items.N`), e o total da factura também (senão 422 em `items`).':
    "A line: `product_id`, `quantity` and `price` are required (the price never comes from the product); `discount` is a percentage; without `tax_id` the line takes the product's tax, with `\"tax_id\": null` none. Each line's subtotal (quantity x price) and total must be below 10^16 (else a 422 at `items.N`), and so must the invoice's total (else a 422 at `items`).",
  'Obrigatório: o preço nunca vem do produto. No máximo 2 casas decimais (`x-decimal-places`), lidas pelos algarismos enviados: mais casas é um 422, nunca arredondado.':
    'Required: the price never comes from the product. At most 2 decimal places (`x-decimal-places`), read from the digits sent: more places are a 422, never rounded.',
  'Percentagem de 0 a 100, não um valor; no máximo 4 casas decimais (`x-decimal-places`).':
    'A percentage from 0 to 100, not an amount; at most 4 decimal places (`x-decimal-places`).',
  'No máximo 4 casas decimais (`x-decimal-places`), lidas pelos algarismos enviados.':
    'At most 4 decimal places (`x-decimal-places`), read from the digits sent.',
  'No máximo 6 casas decimais (`x-decimal-places`), lidas pelos algarismos enviados.':
    'At most 6 decimal places (`x-decimal-places`), read from the digits sent.',
  'Valor com no máximo 2 casas decimais (`x-decimal-places`) e menor que 10^16 (até 9999999999999999.99). O número é lido pelos seus próprios algarismos, nunca como número binário: mais casas é um 422, nunca arredondado.':
    'An amount with at most 2 decimal places (`x-decimal-places`), below 10^16 (up to 9999999999999999.99). The number is read by its own digits, never as a binary double: more places are a 422, never rounded.',
  'A factura que o recibo paga.': 'The invoice the receipt pays.',
  'Uma factura como aparece nas listas: sem `items`.': 'An invoice as lists show it: without `items`.',
  'Um recibo ligado a uma factura da empresa (só leitura).':
    'A receipt linked to an invoice of the company (read only).',
  'Quem é a chave: empresa, modo e permissões.': 'Who the key is: company, mode and scopes.',
  'Gerado pelo serviço, sequência por tipo e por empresa.':
    'Generated by the service, a sequence per type and per company.',
  'Código próprio do parceiro ("" quando não tem).': 'The partner\'s own code ("" when there is none).',
  'Unidade de medida ("" quando não tem).': 'Unit of measure ("" when there is none).',
  'Percentagem do imposto associado.': 'Percentage of the linked tax.',
  'Só leitura; null para produtos NON_INVENTORY.': 'Read only; null for NON_INVENTORY products.',
  'Um produto ou serviço da empresa da chave.': "A product or service of the key's company.",
  'INVENTORY movimenta stock; NON_INVENTORY não.': 'INVENTORY moves stock; NON_INVENTORY does not.',
  'Imposto da empresa da chave ou imposto global.': "A tax of the key's company or a global tax.",
  'Corpo de POST e PUT. No PUT os campos obrigatórios continuam obrigatórios; um campo opcional omitido mantém o valor e `null` apaga-o.':
    'Body of POST and PUT. On PUT the required fields stay required; an optional field left out keeps its value and `null` clears it.',
  'validation_failed: o corpo não é válido; `errors` diz o que corrigir em cada campo. Nada foi criado.':
    'validation_failed: the body is not valid; `errors` says what to fix in each field. Nothing was created.',
  'Uma chave única por operação (por exemplo um UUID). Repetir o mesmo pedido, byte a byte, com a mesma chave devolve a resposta guardada em vez de criar de novo; guardada 24 horas.':
    'A unique key per operation (for example a UUID). Repeating the same request, byte for byte, with the same key returns the stored answer instead of creating again; kept 24 hours.',
  'Verificar a chave': 'Check the key',
  'A empresa da chave, o modo (`live` ou `test`), as permissões e quantos clientes a chave vê. Um bom primeiro pedido de uma integração. Exige `customers:read`.':
    "The key's company, its mode (`live` or `test`), its scopes and how many customers the key sees. A good first request for an integration. Requires `customers:read`.",
  'A chave e a sua empresa.': 'The key and its company.',
  'Identificador do pedido; igual a `error.request_id` num erro. Indique-o ao suporte.':
    "The request's identifier; equal to `error.request_id` in an error. Quote it to support.",
  'Tamanho do limite mais apertado neste momento (chave por minuto, escritas por minuto, por dia ou da empresa).':
    "Size of the tightest limit at this moment (key per minute, writes per minute, per day or the company's).",
  'Pedidos que ainda restam nesse limite.': 'Requests still left in that limit.',
  'Cada limite que contou este pedido, com a sua quota (`q`, pedidos) e janela (`w`, segundos), no formato do rascunho IETF RateLimit headers: `key-minute`, `key-day` e `company-minute` (e `key-writes-minute` num POST ou PUT) para uma chave válida; `ip-minute` para um pedido sem chave válida.':
    'Each limit that counted this request, with its quota (`q`, requests) and window (`w`, seconds), in the format of the IETF RateLimit headers draft: `key-minute`, `key-day` and `company-minute` (and `key-writes-minute` on a POST or PUT) for a valid key; `ip-minute` for a request without a valid key.',
  'O limite mais apertado desses (rascunho IETF): quantos pedidos ainda restam (`r`) e quantos segundos faltam para a sua janela recomeçar (`t`). Para espaçar os pedidos, sobretudo as escritas, antes de chegar a um 429.':
    'The tightest of those limits (IETF draft): how many requests are still left (`r`) and how many seconds until its window starts again (`t`). To space requests out, writes above all, before reaching a 429.',
  'Erro: `invalid_api_key`, `api_key_expired`, `api_key_revoked`. Veja o catálogo de erros em doc_url.':
    'Error: `invalid_api_key`, `api_key_expired`, `api_key_revoked`. See the error catalog at doc_url.',
  'Erro: `browser_use_forbidden`, `partner_api_disabled`, `insufficient_scope`. Veja o catálogo de erros em doc_url.':
    'Error: `browser_use_forbidden`, `partner_api_disabled`, `insufficient_scope`. See the error catalog at doc_url.',
  'Erro: `invalid_query_parameter`. Veja o catálogo de erros em doc_url.':
    'Error: `invalid_query_parameter`. See the error catalog at doc_url.',
  'Erro: `rate_limit_exceeded`. Veja o catálogo de erros em doc_url.':
    'Error: `rate_limit_exceeded`. See the error catalog at doc_url.',
  'Segundos a esperar antes de repetir o pedido.': 'Seconds to wait before repeating the request.',
  'Como enviar a chave (RFC 6750): `Bearer realm="partner-api"`, com `error="invalid_token"` quando foi enviada uma chave que não serve.':
    'How to send the key (RFC 6750): `Bearer realm="partner-api"`, with `error="invalid_token"` when a key was sent that does not work.',
  'Falha interna: a resposta genérica do servidor, sem o envelope de erro e sem detalhes. Repita com recuo (nas escritas, com a mesma Idempotency-Key) e indique o X-Request-Id ao suporte.':
    "Internal failure: the server's generic answer, without the error envelope and without details. Retry with backoff (for writes, with the same Idempotency-Key) and quote the X-Request-Id to support.",
  'Base de dados ocupada além de uma espera limitada: a mesma resposta genérica, sem o envelope de erro, com Retry-After. Nada foi gravado; repita depois de Retry-After (nas escritas, com a mesma Idempotency-Key).':
    'The database was busy beyond a bounded wait: the same generic answer, without the error envelope, with Retry-After. Nothing was stored; retry after Retry-After (for writes, with the same Idempotency-Key).',
  'Listar clientes': 'List customers',
  'Os clientes da empresa e os clientes globais, por páginas. Sem `sort`, os mais recentes primeiro (`created_at` desc). Para sincronizar, use `updated_since` (inclusivo) com `sort=updated_at&order=asc`.':
    "The company's customers and the global customers, page by page. Without `sort`, newest first (`created_at` desc). To sync, use `updated_since` (inclusive) with `sort=updated_at&order=asc`.",
  'Use um número inteiro entre 1 e 2147483647.': 'An integer from 1 to 2147483647.',
  'Use um número inteiro maior ou igual a 1 (valores acima de 100 contam como 100).':
    'An integer of at least 1 (values above 100 count as 100).',
  'Texto a procurar no nome, e-mail, NUIT ou telefone.':
    'Text to look for in the name, email, NUIT or phone.',
  'Use uma data ou data e hora ISO 8601, por exemplo 2026-11-22, 2026-11-22T07:30:00Z ou 2026-11-22T09:30:00%2B02:00 (num URL, o "+" de um fuso escreve-se %2B).':
    'An ISO 8601 date or date and time, for example 2026-11-22, 2026-11-22T07:30:00Z or 2026-11-22T09:30:00%2B02:00 (in a URL, the "+" of an offset is written %2B).',
  'Uma página de clientes e a sua paginação.': 'A page of customers and its pagination.',
  'Criar um cliente': 'Create a customer',
  'Cria um cliente da empresa da chave. `type` por omissão `individual`. O e-mail é único entre os clientes da empresa, sem distinguir maiúsculas: repetido dá `422` em `email`.':
    "Creates a customer of the key's company. `type` defaults to `individual`. The email is unique among the company's customers, ignoring case: a repeated one gives `422` on `email`.",
  'O cliente.': 'The customer.',
  'Presente (`true`) quando a resposta é a repetição guardada de um pedido anterior com a mesma Idempotency-Key.':
    'Present (`true`) when the answer is the stored replay of an earlier request with the same Idempotency-Key.',
  'Erro: `idempotency_key_required`, `idempotency_key_invalid`. Veja o catálogo de erros em doc_url.':
    'Error: `idempotency_key_required`, `idempotency_key_invalid`. See the error catalog at doc_url.',
  'Erro: `browser_use_forbidden`, `partner_api_disabled`, `test_mode_read_only`, `insufficient_scope`. Veja o catálogo de erros em doc_url.':
    'Error: `browser_use_forbidden`, `partner_api_disabled`, `test_mode_read_only`, `insufficient_scope`. See the error catalog at doc_url.',
  'Erro: `idempotency_request_in_flight`, `idempotency_key_reuse`. Veja o catálogo de erros em doc_url.':
    'Error: `idempotency_request_in_flight`, `idempotency_key_reuse`. See the error catalog at doc_url.',
  'Erro: `invalid_query_parameter`, `validation_failed`. Veja o catálogo de erros em doc_url.':
    'Error: `invalid_query_parameter`, `validation_failed`. See the error catalog at doc_url.',
  'Obter um cliente': 'Get a customer',
  'Um id mal formado, inexistente ou de outra empresa responde o mesmo `404 resource_not_found`.':
    'A malformed id, one that does not exist and one of another company all answer the same `404 resource_not_found`.',
  'Id do recurso; mal formado, inexistente ou de outra empresa: 404.':
    "The resource's id; malformed, missing or of another company: 404.",
  'Erro: `resource_not_found`. Veja o catálogo de erros em doc_url.':
    'Error: `resource_not_found`. See the error catalog at doc_url.',
  'Alterar um cliente': 'Update a customer',
  'Só os campos enviados mudam; `null` apaga um campo opcional. Um cliente global ou de outra empresa responde `404`.':
    'Only the fields sent change; `null` clears an optional field. A global customer or one of another company answers `404`.',
  'Listar produtos': 'List products',
  'Os produtos da empresa, por páginas. Sem `sort`, os mais recentes primeiro (`created_at` desc).':
    "The company's products, page by page. Without `sort`, newest first (`created_at` desc).",
  'Texto a procurar no nome, código ou SKU.': 'Text to look for in the name, code or SKU.',
  'Uma página de produtos e a sua paginação.': 'A page of products and its pagination.',
  'Criar um produto': 'Create a product',
  '`product_code` é gerado pelo serviço (sequência por tipo). `stock` começa em 0 para `INVENTORY` e é `null` para `NON_INVENTORY`. O produto entra na sincronização do ponto de venda.':
    '`product_code` is generated by the service (a sequence per type). `stock` starts at 0 for `INVENTORY` and is `null` for `NON_INVENTORY`. The product enters the point-of-sale synchronisation.',
  'O produto.': 'The product.',
  'Obter um produto': 'Get a product',
  'Substituir um produto': 'Replace a product',
  'O mesmo corpo do POST: `name`, `type`, `inventory` e `price` continuam obrigatórios; um campo opcional omitido mantém o valor e `null` apaga-o.':
    'The same body as the POST: `name`, `type`, `inventory` and `price` stay required; an optional field left out keeps its value and `null` clears it.',
  'Listar facturas': 'List invoices',
  'As facturas da empresa, sem linhas (`items`), por páginas. Sem `sort`, por `invoice_date` desc. `date_from` e `date_to` são inclusivos, sobre `invoice_date`.':
    "The company's invoices, without lines (`items`), page by page. Without `sort`, by `invoice_date` desc. `date_from` and `date_to` are inclusive, on `invoice_date`.",
  'Use um identificador numérico inteiro, por exemplo 42.': 'A whole numeric id, for example 42.',
  'Use uma data válida no formato YYYY-MM-DD, por exemplo 2026-11-22.':
    'A valid date in the format YYYY-MM-DD, for example 2026-11-22.',
  'Uma página de facturas e a sua paginação.': 'A page of invoices and its pagination.',
  'Criar um rascunho de factura': 'Create a draft invoice',
  'Cria sempre um rascunho (`status` = `draft`, código `DRAFT-` e 8 caracteres): não usa numeração fiscal nem movimenta stock. Cada linha leva `product_id`, `quantity` e `price`; `discount` é uma percentagem. Um `customer_id` inexistente ou de outra empresa responde `404`. A resposta é igual à de `GET /invoices/{id}`.':
    'Always creates a draft (`status` = `draft`, code `DRAFT-` and 8 characters): it uses no fiscal number and moves no stock. Each line carries `product_id`, `quantity` and `price`; `discount` is a percentage. A `customer_id` that does not exist or belongs to another company answers `404`. The answer is the same as that of `GET /invoices/{id}`.',
  'A factura, com as suas linhas.': 'The invoice, with its lines.',
  'Obter uma factura': 'Get an invoice',
  'A factura com as suas linhas (`items`).': 'The invoice with its lines (`items`).',
  'Listar recibos': 'List receipts',
  'Os recibos ligados a facturas da empresa, por páginas. Sem `sort`, por `payment_date` desc. `date_from` e `date_to` são inclusivos, sobre `payment_date`.':
    "The receipts linked to the company's invoices, page by page. Without `sort`, by `payment_date` desc. `date_from` and `date_to` are inclusive, on `payment_date`.",
  'Uma página de recibos e a sua paginação.': 'A page of receipts and its pagination.',
  'Obter um recibo': 'Get a receipt',
  'O recibo.': 'The receipt.',
  'O endereço do serviço, terminado em /api/v1/partner.': "The service's address, ending in /api/v1/partner.",
  'Por exemplo o servidor local de `npm start`.': 'For example the local server of `npm start`.',
  'Verificar a chave: empresa, modo e permissões.': 'Check the key: company, mode and scopes.',
  'Clientes da empresa da chave e clientes globais.': "Customers of the key's company and global customers.",
  'Produtos e serviços; uma escrita entra na sincronização do ponto de venda.':
    'Products and services; a write enters the point-of-sale synchronisation.',
  'Facturas; a API cria apenas rascunhos.': 'Invoices; the API creates drafts only.',
  'Recibos ligados a facturas da empresa (só leitura).':
    "Receipts linked to the company's invoices (read only).",
  'Partner API v1 — serviço de facturação': 'Partner API v1 — invoicing service',
  'Suporte do serviço de facturação': 'Invoicing service support',
};
