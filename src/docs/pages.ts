// The HTML of the docs site's own pages: the home page, the guide, the webhooks and the MCP pages
// in each language (markdown under docs/site/, rendered with marked) and the error catalog. The API
// reference is rendered by Redoc (build.ts). Pages link to each other relatively, so the site works
// under any prefix. Two blocks of the markdown are built here from their one source:
// ```samples NAME``` shows the code sample NAME in its four languages (docs/samples, the same files
// CI runs), and ```events``` the table of webhook events (src/docs/webhook-events.ts).
import { Marked, type Tokens } from 'marked';
import { type CatalogEntry, errorCatalog, type Language } from './error-catalog.js';
import { renderedSample, SAMPLE_LANGUAGES, sampleById } from './samples.js';
import { WEBHOOK_EVENTS, WEBHOOK_TYPES } from './webhook-events.js';

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A heading's anchor: lower case, accents dropped, words joined by "-". */
export function slugOf(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const STYLE = `
:root { color-scheme: light; --ink: #1d2430; --muted: #5b6473; --line: #d9dee6; --accent: #0b6e4f; --code: #f4f6f8; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); }
header.site { background: #0b3d2e; color: #fff; padding: 0.6rem 1.5rem; display: flex; flex-wrap: wrap; gap: 1.2rem; align-items: baseline; }
header.site a { color: #e8f5ee; text-decoration: none; }
header.site a:hover { text-decoration: underline; }
header.site .brand { font-weight: 700; color: #fff; margin-right: auto; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.9rem; margin-top: 0.5rem; }
h2 { margin-top: 2.2rem; border-bottom: 1px solid var(--line); padding-bottom: 0.2rem; }
a { color: var(--accent); }
code { background: var(--code); padding: 0.05rem 0.3rem; border-radius: 3px; font-size: 0.92em; }
pre { background: var(--code); padding: 0.8rem 1rem; overflow-x: auto; border-radius: 4px; }
pre code { padding: 0; background: none; }
table { border-collapse: collapse; margin: 1rem 0; width: 100%; }
th, td { border: 1px solid var(--line); padding: 0.35rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f0f3f6; }
nav.toc { border: 1px solid var(--line); border-radius: 4px; padding: 0.6rem 1.2rem; margin: 1rem 0; }
nav.toc ul { margin: 0.3rem 0; padding-left: 1.2rem; }
section.error { border: 1px solid var(--line); border-radius: 6px; padding: 0.4rem 1.2rem 1rem; margin: 1.4rem 0; scroll-margin-top: 1rem; }
section.error:target { border-color: var(--accent); box-shadow: 0 0 0 3px #bfe5d6; }
section.error h2 { border: none; margin-top: 0.8rem; font-family: ui-monospace, monospace; font-size: 1.3rem; }
.status { font-family: system-ui, sans-serif; font-size: 0.95rem; background: #fdecea; color: #8a1c12; border-radius: 3px; padding: 0.05rem 0.45rem; margin-left: 0.5rem; }
dl.bilingual { display: grid; grid-template-columns: 11rem 1fr; gap: 0.3rem 1rem; margin: 0.6rem 0; }
dl.bilingual dt { font-weight: 600; color: var(--muted); }
dl.bilingual dd { margin: 0; }
.lang { font-size: 0.75rem; color: var(--muted); border: 1px solid var(--line); border-radius: 3px; padding: 0 0.3rem; margin-right: 0.35rem; }
footer { color: var(--muted); font-size: 0.85rem; border-top: 1px solid var(--line); margin-top: 3rem; padding-top: 0.8rem; }
.samples { position: relative; display: flex; flex-wrap: wrap; border: 1px solid var(--line); border-radius: 4px; margin: 1rem 0; background: #f0f3f6; }
.samples input { position: absolute; opacity: 0; pointer-events: none; }
.samples label { padding: 0.3rem 0.9rem; cursor: pointer; color: var(--muted); font-size: 0.9rem; border-bottom: 2px solid transparent; }
.samples input:focus-visible + label { outline: 2px solid var(--accent); }
.samples input:checked + label { color: var(--ink); font-weight: 600; border-bottom-color: var(--accent); }
.samples pre { display: none; flex-basis: 100%; margin: 0; border-top: 1px solid var(--line); border-radius: 0 0 4px 4px; }
${SAMPLE_LANGUAGES.map((_, i) => `.samples input:nth-of-type(${i + 1}):checked ~ pre:nth-of-type(${i + 1})`).join(',\n')} { display: block; }
`;

/** Keeps one language chosen in every block of samples, also on the next visit. */
const SAMPLES_SCRIPT = `<script>
(() => {
  const choose = (value) => {
    for (const input of document.querySelectorAll('.samples input[value="' + value + '"]')) input.checked = true;
  };
  document.addEventListener('change', (event) => {
    const input = event.target;
    if (!input.matches || !input.matches('.samples input')) return;
    choose(input.value);
    try { localStorage.setItem('sample-language', input.value); } catch {}
  });
  let saved = null;
  try { saved = localStorage.getItem('sample-language'); } catch {}
  if (saved && /^[a-z]+$/.test(saved)) choose(saved);
})();
</script>`;

interface PageOptions {
  title: string;
  lang: Language;
  /** From the page to the site's root: '' or '../'. */
  root: string;
  body: string;
}

export function page({ title, lang, root, body }: PageOptions): string {
  const nav = [
    [`${root}pt/`, 'Guia (PT)'],
    [`${root}en/`, 'Guide (EN)'],
    [`${root}pt/webhooks`, 'Webhooks (PT)'],
    [`${root}en/webhooks`, 'Webhooks (EN)'],
    [`${root}errors`, 'Erros · Errors'],
    [`${root}pt/referencia`, 'Referência (PT)'],
    [`${root}en/reference`, 'Reference (EN)'],
    [`${root}openapi.json`, 'openapi.json'],
  ]
    .map(([href, label]) => `<a href="${href}">${label}</a>`)
    .join('\n    ');
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<header class="site">
    <a class="brand" href="${root}">Partner API v1</a>
    ${nav}
</header>
<main>
${body}
<footer>Partner API v1 · serviço de facturação · invoicing service</footer>
</main>
${body.includes('class="samples"') ? SAMPLES_SCRIPT : ''}
</body>
</html>
`;
}

/** The four variants of a code sample, as tabs (the first one shown). */
export function samplesBlock(id: string, lang: Language, index: number): string {
  sampleById(id);
  const name = `sample-${index}`;
  const tabs = SAMPLE_LANGUAGES.map(
    (language, i) =>
      `<input type="radio" name="${name}" id="${name}-${language.id}" value="${language.id}"${i === 0 ? ' checked' : ''}><label for="${name}-${language.id}">${language.label}</label>`,
  ).join('');
  const panels = SAMPLE_LANGUAGES.map(
    (language) =>
      `<pre data-language="${language.id}"><code class="language-${language.id}">${escapeHtml(renderedSample(id, language.id, lang))}</code></pre>`,
  ).join('\n');
  return `<div class="samples" data-sample="${id}">\n${tabs}\n${panels}\n</div>\n`;
}

const EVENT_HEADINGS: Record<Language, [string, string, string]> = {
  pt: ['Tipo', 'Quando', '`data`'],
  en: ['Type', 'When', '`data`'],
};

/** The table of webhook events, as markdown (so that its `code` spans render as the rest). */
function eventsTable(lang: Language): string {
  const [type, when, data] = EVENT_HEADINGS[lang];
  const rows = WEBHOOK_TYPES.map((name) => [name, WEBHOOK_EVENTS[name]] as const).map(
    ([name, event]) =>
      `| \`${name}\` | ${event.when[lang]} | ${event.data ? `\`${event.data}\`` : '`{ endpoint_id, message }`'} |`,
  );
  return [`| ${type} | ${when} | ${data} |`, '| --- | --- | --- |', ...rows].join('\n');
}

/** Markdown to HTML, headings with anchors and a table of contents of the second level. */
export function renderMarkdown(markdown: string, lang: Language = 'en'): { html: string; title: string } {
  const toc: { id: string; text: string }[] = [];
  let title = '';
  let samples = 0;
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Heading) {
        const inner = this.parser.parseInline(token.tokens);
        if (token.depth === 1) {
          title = token.text;
          return `<h1>${inner}</h1>\n`;
        }
        const id = slugOf(token.text);
        if (token.depth === 2) toc.push({ id, text: inner });
        return `<h${token.depth} id="${id}"><a href="#${id}">${inner}</a></h${token.depth}>\n`;
      },
      code(token: Tokens.Code) {
        if (token.lang === 'samples') return samplesBlock(token.text.trim(), lang, ++samples);
        if (token.lang === 'events') return marked.parse(eventsTable(lang), { async: false });
        return false;
      },
    },
  });
  const content = marked.parse(markdown, { async: false });
  const tocHtml = `<nav class="toc"><ul>\n${toc.map((item) => `<li><a href="#${item.id}">${item.text}</a></li>`).join('\n')}\n</ul></nav>`;
  // The table of contents goes right after the title.
  const html = content.replace(/(<\/h1>\n)/, `$1${tocHtml}\n`);
  return { html, title };
}

export function guidePage(markdown: string, lang: Language): string {
  const { html, title } = renderMarkdown(markdown, lang);
  return page({ title, lang, root: '../', body: html });
}

const LABELS: Record<Language, { when: string; todo: string; retry: string }> = {
  pt: { when: 'Quando acontece', todo: 'O que fazer', retry: 'Repetir ajuda?' },
  en: { when: 'When it happens', todo: 'What to do', retry: 'Does a retry help?' },
};

function bilingual(label: keyof (typeof LABELS)['pt'], entry: CatalogEntry): string {
  return (['pt', 'en'] as const)
    .map(
      (lang) =>
        `<dt lang="${lang}">${LABELS[lang][label]}</dt><dd lang="${lang}"><span class="lang">${lang.toUpperCase()}</span>${escapeHtml(entry[label][lang])}</dd>`,
    )
    .join('\n');
}

function catalogEntry(entry: CatalogEntry): string {
  return `<section class="error" id="${entry.code}">
<h2><a href="#${entry.code}">${entry.code}</a><span class="status">HTTP ${entry.status}</span></h2>
<dl class="bilingual">
<dt>message</dt><dd lang="pt">${escapeHtml(entry.message)}</dd>
<dt>hint</dt><dd lang="pt">${escapeHtml(entry.hint)}</dd>
${bilingual('when', entry)}
${bilingual('todo', entry)}
${bilingual('retry', entry)}
</dl>
<pre><code>${escapeHtml(JSON.stringify(entry.example, null, 2))}</code></pre>
</section>`;
}

export function errorsPage(docsUrl: string): string {
  const entries = errorCatalog(docsUrl);
  const rows = entries
    .map(
      (entry) =>
        `<tr><td><a href="#${entry.code}"><code>${entry.code}</code></a></td><td>${entry.status}</td><td lang="pt">${escapeHtml(entry.message)}</td></tr>`,
    )
    .join('\n');
  const body = `<h1>Catálogo de erros · Error catalog</h1>
<p lang="pt">Toda a falha da API traz <code>error.code</code> e um <code>doc_url</code> que abre a entrada desse código nesta página. Decida sempre pelo código; a mensagem e o hint podem mudar.</p>
<p lang="en">Every API failure carries <code>error.code</code> and a <code>doc_url</code> that opens that code's entry on this page. Always branch on the code; the message and hint may change.</p>
<table>
<thead><tr><th>code</th><th>HTTP</th><th>message</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
${entries.map(catalogEntry).join('\n')}`;
  return page({ title: 'Catálogo de erros · Error catalog — Partner API v1', lang: 'pt', root: '', body });
}

export function homePage(): string {
  const body = `<h1>Partner API v1</h1>
<p lang="pt">A API servidor-a-servidor com que um sistema externo lê e escreve os dados de uma empresa do serviço de facturação: clientes, produtos, facturas (rascunhos) e recibos.</p>
<p lang="en">The server-to-server API through which an external system reads and writes the data of one company of the invoicing service: customers, products, invoices (drafts) and receipts.</p>
<table>
<thead><tr><th>Português</th><th>English</th></tr></thead>
<tbody>
<tr><td><a href="pt/">Guia do parceiro</a>: chaves, permissões, idempotência, repetições, paginação, sincronização, decimais, limites, webhooks, com exemplos em curl, TypeScript, PHP e Python</td><td><a href="en/">Partner guide</a>: keys, scopes, idempotency, retries, pagination, sync, decimals, rate limits, webhooks, with samples in curl, TypeScript, PHP and Python</td></tr>
<tr><td><a href="pt/webhooks">Webhooks</a>: os eventos, verificar a assinatura, repetições, ordem e duplicados, a causa de um evento</td><td><a href="en/webhooks">Webhooks</a>: the events, verifying the signature, retries, ordering and duplicates, the cause of an event</td></tr>
<tr><td><a href="pt/referencia">Referência da API</a>: as 14 rotas e os eventos, com exemplos em curl, TypeScript, PHP e Python (Redoc)</td><td><a href="en/reference">API reference</a>: the 14 routes and the events, with samples in curl, TypeScript, PHP and Python (Redoc)</td></tr>
<tr><td><a href="pt/fila-offline">Fila offline</a>: vender sem ligação e enviar cada escrita exactamente uma vez, mesmo depois de 24 horas (TypeScript, PHP, Python)</td><td><a href="en/offline-queue">Offline queue</a>: selling without a line and sending each write exactly once, even after 24 hours (TypeScript, PHP, Python)</td></tr>
<tr><td><a href="pt/mcp">Assistentes de IA (MCP)</a>: o servidor MCP oficial, as ferramentas e o modelo de segurança</td><td><a href="en/mcp">AI assistants (MCP)</a>: the official MCP server, its tools and its safety model</td></tr>
<tr><td><a href="pt/compatibilidade">Compatibilidade</a>: o que nunca muda na v1, avisos de descontinuação, prazos; registos de alterações da <a href="changelog/api">API</a> e dos clientes</td><td><a href="en/compatibility">Compatibility</a>: what never changes in v1, deprecation notices, notice periods; changelogs of the <a href="changelog/api">API</a> and the clients</td></tr>
<tr><td>Clientes oficiais: <a href="pt/cliente-typescript">TypeScript</a>, <a href="pt/cliente-php">PHP</a>, <a href="pt/cliente-python">Python</a>, <a href="pt/cliente-mcp">servidor MCP</a>; os pacotes e como instalá-los em <a href="sdk/">/sdk/</a></td><td>Official clients: <a href="en/client-typescript">TypeScript</a>, <a href="en/client-php">PHP</a>, <a href="en/client-python">Python</a>, <a href="en/client-mcp">MCP server</a>; the packages and how to install them at <a href="sdk/">/sdk/</a></td></tr>
<tr><td>Operação: <a href="pt/operador">a linha de comandos do operador</a> e <a href="pt/implantacao">pôr o serviço em produção</a>; <a href="pt/consola">a consola de suporte</a></td><td>Operations: <a href="en/operator-cli">the operator command line</a> and <a href="en/deploy">deploying the service</a>; <a href="en/console">the support console</a></td></tr>
<tr><td colspan="2"><a href="errors">Catálogo de erros · Error catalog</a> — os 15 códigos · the 15 codes</td></tr>
<tr><td><a href="openapi.json">openapi.json</a> — OpenAPI 3.1, em português</td><td><a href="en/openapi.json">en/openapi.json</a> — OpenAPI 3.1, in English</td></tr>
</tbody>
</table>`;
  return page({ title: 'Partner API v1 — documentação · documentation', lang: 'pt', root: '', body });
}

/** `/reference`: the API reference in each language. */
export function referenceChooserPage(): string {
  const body = `<h1>Referência da API · API reference</h1>
<p lang="pt">As 14 rotas e os eventos de webhook, com os seus campos, erros e exemplos em curl, TypeScript, PHP e Python.</p>
<p lang="en">The 14 routes and the webhook events, with their fields, errors and samples in curl, TypeScript, PHP and Python.</p>
<table>
<thead><tr><th>Português</th><th>English</th></tr></thead>
<tbody>
<tr><td><a href="pt/referencia">Referência da API</a></td><td><a href="en/reference">API reference</a></td></tr>
<tr><td><a href="openapi.json">openapi.json</a></td><td><a href="en/openapi.json">en/openapi.json</a></td></tr>
</tbody>
</table>`;
  return page({ title: 'Referência · Reference — Partner API v1', lang: 'pt', root: '', body });
}
