// The error catalog of the docs site: one entry per code of src/errors.ts, anchored at
// `errors#<code>` (the `doc_url` of every error). Status, message and hint come from the error
// module itself and the example body from the same function that builds real answers, so the
// catalog cannot drift; the explanations below are typed by ErrorCode, so a new code that is not
// explained here does not compile.
import { ApiError, ERROR_CODES, type ErrorCode, envelopeOf } from '../errors.js';

export type Language = 'pt' | 'en';
type Text = Record<Language, string>;

/** Whether repeating the request can succeed, and how. */
type Retry = 'no' | 'after-fix' | 'same-key' | 'after-wait' | 'new-key';

interface Explanation {
  when: Text;
  todo: Text;
  retry: Retry;
}

const RETRY: Record<Retry, Text> = {
  no: { pt: 'Não: repetir dá a mesma resposta.', en: 'No: repeating gives the same answer.' },
  'after-fix': {
    pt: 'Sim, depois de corrigir o pedido (a mesma Idempotency-Key pode ser reutilizada).',
    en: 'Yes, once the request is fixed (the same Idempotency-Key may be reused).',
  },
  'same-key': {
    pt: 'Sim: o mesmo pedido com a mesma Idempotency-Key, depois de Retry-After.',
    en: 'Yes: the same request with the same Idempotency-Key, after Retry-After.',
  },
  'after-wait': {
    pt: 'Sim, depois dos segundos de Retry-After, com recuo exponencial.',
    en: 'Yes, after the seconds in Retry-After, with exponential backoff.',
  },
  'new-key': {
    pt: 'Não com esta chave: um pedido diferente precisa de uma nova Idempotency-Key.',
    en: 'Not with this key: a different request needs a new Idempotency-Key.',
  },
};

export const EXPLANATIONS: Record<ErrorCode, Explanation> = {
  invalid_api_key: {
    when: {
      pt: 'Falta o cabeçalho Authorization, não começa por "Bearer ", ou a chave está mal formada ou não existe.',
      en: 'The Authorization header is missing, does not start with "Bearer ", or the key is malformed or unknown.',
    },
    todo: {
      pt: 'Envie "Authorization: Bearer svc_sk_live_..." com a chave tal como foi entregue (sem espaços nem aspas). Pedidos sem chave válida contam para o limite por IP (RateLimit-Policy: "ip-minute"); uma chave válida nunca é recusada por esse limite.',
      en: 'Send "Authorization: Bearer svc_sk_live_..." with the key exactly as issued (no spaces or quotes). Requests without a valid key count toward the per-IP limit (RateLimit-Policy: "ip-minute"); a valid key is never refused by that limit.',
    },
    retry: 'no',
  },
  api_key_expired: {
    when: {
      pt: 'A chave passou a sua validade (no máximo 365 dias). Não há aviso prévio.',
      en: 'The key is past its validity (365 days at most). No warning is sent beforehand.',
    },
    todo: {
      pt: 'Peça uma nova chave ao suporte e substitua-a na configuração do seu sistema.',
      en: 'Ask support for a new key and replace it in your system’s configuration.',
    },
    retry: 'no',
  },
  api_key_revoked: {
    when: { pt: 'A chave foi desactivada.', en: 'The key was deactivated.' },
    todo: {
      pt: 'Pare de a usar e peça uma nova chave ao suporte.',
      en: 'Stop using it and ask support for a new key.',
    },
    retry: 'no',
  },
  partner_api_disabled: {
    when: {
      pt: 'A chave é válida, mas a API de parceiros não está activa para a empresa (está desligada por omissão).',
      en: 'The key is valid, but the partner API is not enabled for the company (it is off by default).',
    },
    todo: {
      pt: 'A empresa deve pedir ao suporte a activação. A mudança vale a partir do pedido seguinte.',
      en: 'The company must ask support to enable it. The change holds from the next request.',
    },
    retry: 'no',
  },
  browser_use_forbidden: {
    when: {
      pt: 'O pedido traz um cabeçalho Origin, ou seja, vem de um navegador. É recusado antes de a chave ser vista.',
      en: 'The request carries an Origin header, i.e. it comes from a browser. It is refused before the key is even looked at.',
    },
    todo: {
      pt: 'Chame a API a partir do seu servidor. Nunca coloque a chave em código que corre num navegador.',
      en: 'Call the API from your server. Never put the key in code that runs in a browser.',
    },
    retry: 'no',
  },
  test_mode_read_only: {
    when: {
      pt: 'Um POST ou PUT com uma chave de teste (svc_sk_test_). Chaves de teste só lêem, quaisquer que sejam as permissões.',
      en: 'A POST or PUT with a test key (svc_sk_test_). Test keys only read, whatever their scopes.',
    },
    todo: {
      pt: 'Use uma chave svc_sk_live_ para escrever. Note que as chaves de teste lêem os dados reais da empresa.',
      en: 'Use a svc_sk_live_ key to write. Note that test keys read the company’s real data.',
    },
    retry: 'no',
  },
  insufficient_scope: {
    when: {
      pt: 'A chave não tem a permissão (scope) que a rota exige; o hint diz qual.',
      en: 'The key lacks the scope the route requires; the hint names it.',
    },
    todo: {
      pt: 'Peça ao suporte uma chave com essa permissão.',
      en: 'Ask support for a key with that scope.',
    },
    retry: 'no',
  },
  resource_not_found: {
    when: {
      pt: 'O id do caminho está mal formado, não existe ou é de outra empresa (a resposta é a mesma nos três casos); também um customer_id desconhecido ao criar uma factura, e um PUT num cliente global.',
      en: 'The path id is malformed, does not exist or belongs to another company (the answer is the same in all three cases); also an unknown customer_id when creating an invoice, and a PUT on a global customer.',
    },
    todo: {
      pt: 'Verifique o id. Se o guardou do seu lado, o registo pode ser de outra empresa ou chave.',
      en: 'Check the id. If you stored it on your side, the record may belong to another company or key.',
    },
    retry: 'no',
  },
  invalid_query_parameter: {
    when: {
      pt: 'Um parâmetro de consulta inválido: sort, order, status ou type fora dos valores aceites, datas que não são ISO 8601, ids não numéricos, page ou per_page abaixo de 1; ou um parâmetro que o pedido não conhece (um erro de escrita como stauts=paid nunca devolve todas as facturas em silêncio; um pedido sem parâmetros não aceita nenhum). per_page acima de 100 NÃO é erro (conta como 100).',
      en: 'An invalid query parameter: sort, order, status or type outside the accepted values, dates that are not ISO 8601, non-numeric ids, page or per_page below 1; or a parameter the route does not know (a typo such as stauts=paid never silently returns every invoice; a route without parameters takes none). per_page above 100 is NOT an error (it counts as 100).',
    },
    todo: {
      pt: 'Corrija o parâmetro: a mensagem nomeia-o e o hint lista os valores válidos ou os parâmetros do pedido. Numa data e hora, escreva o "+" do fuso como %2B (ou use Z): um "+" num URL lê-se como espaço.',
      en: 'Fix the parameter: the message names it and the hint lists the valid values or the route’s parameters. In a timestamp, write the offset’s "+" as %2B (or use Z): a "+" in a URL reads as a space.',
    },
    retry: 'no',
  },
  validation_failed: {
    when: {
      pt: 'O corpo não é válido: JSON mal formado, demasiado grande, com mais de 32 níveis de objectos ou listas ou mais de 10 000 valores, outro Content-Type, campos desconhecidos, tipos errados (números têm de ser números JSON), limites, ou regras próprias (linhas sem product_id ou price, produtos ou impostos que a empresa não pode usar, mais de 2 casas decimais, e-mail repetido). Um só 422 nomeia todos os problemas.',
      en: 'The body is not valid: malformed JSON, too large, more than 32 levels of objects or arrays or more than 10,000 values, another Content-Type, unknown fields, wrong types (numbers must be JSON numbers), limits, or the route’s own rules (lines without product_id or price, products or taxes the company cannot use, more than 2 decimals, a taken e-mail). One 422 names every problem.',
    },
    todo: {
      pt: 'Corrija cada campo de error.errors (caminho com pontos, linhas a partir de 0: items.0.price). Nada foi criado; a mesma Idempotency-Key pode ser reutilizada.',
      en: 'Fix each field in error.errors (dotted path, lines from 0: items.0.price). Nothing was created; the same Idempotency-Key may be reused.',
    },
    retry: 'after-fix',
  },
  idempotency_key_required: {
    when: {
      pt: 'Um POST ou PUT sem o cabeçalho Idempotency-Key.',
      en: 'A POST or PUT without the Idempotency-Key header.',
    },
    todo: {
      pt: 'Gere uma chave única por operação (por exemplo um UUID), guarde-a com a operação e envie-a em cada tentativa dessa operação.',
      en: 'Generate one unique key per operation (a UUID, say), store it with the operation and send it on every attempt of that operation.',
    },
    retry: 'no',
  },
  idempotency_key_invalid: {
    when: {
      pt: 'O Idempotency-Key não tem entre 8 e 191 caracteres de letras, dígitos, ".", "_", ":" ou "-".',
      en: 'The Idempotency-Key is not 8 to 191 characters of letters, digits, ".", "_", ":" or "-".',
    },
    todo: { pt: 'Use, por exemplo, um UUID.', en: 'Use, for example, a UUID.' },
    retry: 'no',
  },
  idempotency_request_in_flight: {
    when: {
      pt: 'Um pedido com a mesma Idempotency-Key ainda está a ser processado (por exemplo, uma repetição enviada depois de um tempo de espera do cliente).',
      en: 'A request with the same Idempotency-Key is still being processed (for example a retry sent after a client-side timeout).',
    },
    todo: {
      pt: 'Espere os segundos de Retry-After (2) e repita exactamente o mesmo pedido com a mesma chave: recebe a resposta do primeiro, com Idempotency-Replay: true.',
      en: 'Wait the seconds in Retry-After (2) and repeat exactly the same request with the same key: you get the first one’s answer, with Idempotency-Replay: true.',
    },
    retry: 'same-key',
  },
  idempotency_key_reuse: {
    when: {
      pt: 'A Idempotency-Key já foi usada (nas últimas 24 horas, com esta chave de API) com outro pedido: outro método, caminho ou corpo. Os corpos são comparados byte a byte: outra ordem de campos ou outros espaços contam como outro pedido.',
      en: 'The Idempotency-Key was already used (in the last 24 hours, with this API key) for another request: another method, path or body. Bodies are compared byte for byte: another field order or other whitespace counts as another request.',
    },
    todo: {
      pt: 'Para repetir, envie exactamente os mesmos bytes (guarde o corpo serializado, não o objecto). Para um pedido novo, use uma nova chave.',
      en: 'To retry, send exactly the same bytes (store the serialized body, not the object). For a new request, use a new key.',
    },
    retry: 'new-key',
  },
  rate_limit_exceeded: {
    when: {
      pt: 'Um limite foi excedido: por chave (por minuto, escritas por minuto, por dia), por empresa (por minuto) ou por IP sem chave válida. Pedidos recusados também contam.',
      en: 'A limit was exceeded: per key (per minute, writes per minute, per day), per company (per minute) or per IP without a valid key. Refused requests count too.',
    },
    todo: {
      pt: 'Espere Retry-After; depois recue 2x, 4x, 8x e desista ao fim de 5 tentativas. Repetir antes de Retry-After só gasta pedidos. Para não chegar aqui, espace os pedidos pelos cabeçalhos RateLimit-Policy e RateLimit de cada resposta.',
      en: 'Wait Retry-After; then back off 2x, 4x, 8x and give up after 5 attempts. Retrying before Retry-After only spends requests. To avoid getting here, pace requests on the RateLimit-Policy and RateLimit headers of every response.',
    },
    retry: 'after-wait',
  },
};

export interface CatalogEntry {
  code: ErrorCode;
  status: number;
  message: string;
  hint: string;
  when: Text;
  todo: Text;
  retry: Text;
  example: unknown;
}

const EXAMPLE_ERRORS = { 'items.0.price': ['é obrigatório'], email: ['formato inválido (email)'] };

/** Every code, in the order of src/errors.ts, with what the error module says about it. */
export function errorCatalog(docsUrl: string): CatalogEntry[] {
  return ERROR_CODES.map((code) => {
    const error = new ApiError(code, code === 'validation_failed' ? { errors: EXAMPLE_ERRORS } : {});
    const explanation = EXPLANATIONS[code];
    return {
      code,
      status: error.statusCode,
      message: error.message,
      hint: error.hint,
      when: explanation.when,
      todo: explanation.todo,
      retry: RETRY[explanation.retry],
      example: envelopeOf(error, docsUrl, 'req_4f1c2a9b7d3e8f6a1b2c3d4e'),
    };
  });
}
