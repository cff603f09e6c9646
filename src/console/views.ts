// The console's pages, rendered on the server with Eta (small, typed, escapes by default): every
// `<%= %>` is escaped, so partner data (names, addresses, URLs, stored answers) is always text.
// `<%~ %>` (unescaped) is used only for the page body inside the layout and for the QR code's SVG,
// both made here. Templates are strings in this module so that the build (tsc) carries them.
import { Eta } from 'eta';

const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });

const TEMPLATES: Record<string, string> = {
  layout: `<!doctype html>
<html lang="<%= it.lang %>">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %> · <%= it.t('app.title') %></title>
<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main"><%= it.t('nav.skip') %></a>
<header>
<strong><%= it.t('app.title') %></strong>
<% if (it.staff) { %>
<nav aria-label="<%= it.t('app.title') %>"><ul>
<% if (it.staff.role === 'partner') { %>
<li><a href="/companies/<%= it.staff.companyId %>"><%= it.t('nav.companies') %></a></li>
<% } else { %>
<li><a href="/companies"><%= it.t('nav.companies') %></a></li>
<% } %>
<li><a href="/requests"><%= it.t('nav.requests') %></a></li>
<li><a href="/usage"><%= it.t('nav.usage') %></a></li>
<% if (it.staff.role !== 'partner') { %><li><a href="/audit"><%= it.t('nav.audit') %></a></li><% } %>
<% if (it.staff.role === 'admin') { %><li><a href="/staff"><%= it.t('nav.staff') %></a></li><% } %>
</ul></nav>
<span class="who"><%= it.t('nav.signed_in_as', { name: it.staff.name, role: it.t('role.' + it.staff.role) }) %></span>
<form class="inline" method="post" action="/logout"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button type="submit"><%= it.t('nav.logout') %></button></form>
<% } %>
<a href="?lang=<%= it.lang === 'pt' ? 'en' : 'pt' %>" lang="<%= it.lang === 'pt' ? 'en' : 'pt' %>"><%= it.t('lang.switch') %></a>
</header>
<main id="main">
<h1><%= it.title %></h1>
<% if (it.notice) { %><p class="notice" role="status"><%= it.notice %></p><% } %>
<% if (it.error) { %><p class="error" role="alert"><%= it.error %></p><% } %>
<%~ it.body %>
</main>
</body>
</html>`,

  message: ``,

  login: `<form method="post" action="/login">
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<input type="hidden" name="next" value="<%= it.next %>">
<label for="email"><%= it.t('login.email') %></label>
<input id="email" name="email" type="email" autocomplete="username" required value="<%= it.email %>">
<label for="password"><%= it.t('login.password') %></label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="code"><%= it.t('login.code') %></label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" required>
<div><button type="submit"><%= it.t('login.submit') %></button></div>
</form>`,

  setup: `<p><%= it.t('setup.intro', { name: it.name }) %></p>
<form method="post" action="/setup/<%= it.token %>">
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<label for="password"><%= it.t('setup.password', { min: it.min }) %></label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="<%= it.min %>" required>
<label for="confirm"><%= it.t('setup.confirm') %></label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="<%= it.min %>" required>
<p><%= it.t('setup.secret') %>: <code id="totp-secret" class="secret"><%= it.secret %></code></p>
<p><%= it.t('setup.scan') %></p>
<div class="qr" role="img" aria-label="QR"><%~ it.qr %></div>
<label for="code"><%= it.t('setup.code') %></label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" required>
<div><button type="submit"><%= it.t('setup.submit') %></button></div>
</form>`,

  companies: `<form method="get" action="/companies" role="search">
<label for="q"><%= it.t('companies.search') %></label>
<input id="q" name="q" value="<%= it.q %>"> <button type="submit"><%= it.t('companies.search_submit') %></button>
</form>
<% if (it.companies.length === 0) { %><p><%= it.t('companies.none') %></p><% } else { %>
<table><thead><tr><th scope="col"><%= it.t('field.id') %></th><th scope="col"><%= it.t('field.name') %></th><th scope="col"><%= it.t('field.nuit') %></th><th scope="col"><%= it.t('field.api') %></th><th scope="col"><%= it.t('field.keys') %></th><th scope="col"><%= it.t('field.last_request') %></th></tr></thead><tbody>
<% for (const c of it.companies) { %>
<tr><td><%= c.id %></td><td><a href="/companies/<%= c.id %>"><%= c.name %></a></td><td><%= c.nuit ?? '' %></td><td><%= it.t(c.partner_api_enabled ? 'api.on' : 'api.off') %></td><td><%= c.keys %></td><td><%= c.last_request ?? it.t('common.none') %></td></tr>
<% } %>
</tbody></table><% } %>`,

  company: `<dl>
<dt><%= it.t('field.nuit') %></dt><dd><%= it.company.nuit ?? it.t('common.none') %></dd>
<dt><%= it.t('field.api') %></dt><dd><%= it.t(it.company.partner_api_enabled ? 'api.on' : 'api.off') %></dd>
</dl>
<% if (it.can.support) { %>
<form method="post" action="/companies/<%= it.company.id %>/api">
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<input type="hidden" name="enabled" value="<%= it.company.partner_api_enabled ? 'false' : 'true' %>">
<button type="submit"<%~ it.company.partner_api_enabled ? ' class="danger"' : '' %>><%= it.t(it.company.partner_api_enabled ? 'company.disable_api' : 'company.enable_api') %></button>
</form>
<% } %>
<ul>
<li><a href="/companies/<%= it.company.id %>/keys"><%= it.t('company.keys') %></a> (<%= it.activeKeys %>)</li>
<li><a href="/companies/<%= it.company.id %>/webhooks"><%= it.t('company.webhooks') %></a> (<%= it.endpoints %>)</li>
<li><a href="/requests?company=<%= it.company.id %>"><%= it.t('company.requests') %></a></li>
<li><a href="/usage?company=<%= it.company.id %>"><%= it.t('company.usage') %></a></li>
</ul>
<h2><%= it.t('company.taxes') %></h2>
<p><%= it.t('company.taxes_help') %></p>
<% if (it.taxes.length === 0) { %><p><%= it.t('company.taxes_none') %></p><% } else { %>
<table><thead><tr><th scope="col">tax_id</th><th scope="col"><%= it.t('field.name') %></th><th scope="col"><%= it.t('field.rate') %></th><th scope="col"><%= it.t('field.scope') %></th></tr></thead><tbody>
<% for (const tax of it.taxes) { %>
<tr><td><%= tax.id %></td><td><%= tax.name %></td><td><%= tax.rate %>%</td><td><%= it.t(tax.company_id === null ? 'tax.global' : 'tax.own') %></td></tr>
<% } %>
</tbody></table><% } %>`,

  keys: `<% if (it.created) { %>
<div class="notice" role="status"><p><%= it.t('keys.created', { id: it.created.id }) %></p>
<p><code id="new-key" class="secret"><%= it.created.key %></code> <button type="button" data-copy="new-key" data-copied="<%= it.t('keys.copied') %>"><%= it.t('keys.copy') %></button></p></div>
<% } %>
<% if (it.keys.length === 0) { %><p><%= it.t('keys.none') %></p><% } else { %>
<table><thead><tr><th scope="col"><%= it.t('field.id') %></th><th scope="col"><%= it.t('field.prefix') %></th><th scope="col"><%= it.t('field.mode') %></th><th scope="col"><%= it.t('field.state') %></th><th scope="col"><%= it.t('field.expires_at') %></th><th scope="col"><%= it.t('field.last_used_at') %></th></tr></thead><tbody>
<% for (const k of it.keys) { %>
<tr><td><a href="/companies/<%= it.company.id %>/keys/<%= k.id %>"><%= k.id %></a></td><td><code><%= k.display_prefix %></code></td><td><%= k.mode %></td><td><%= it.t('key.state.' + k.status) %></td><td><%= k.expires_at %></td><td><%= k.last_used_at ?? it.t('common.none') %></td></tr>
<% } %>
</tbody></table><% } %>
<% if (it.can.support) { %>
<form method="post" action="/companies/<%= it.company.id %>/keys">
<fieldset><legend><%= it.t('keys.create') %></legend>
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<label for="mode"><%= it.t('keys.mode') %></label>
<select id="mode" name="mode"><option value="live">live</option><option value="test">test</option></select>
<label for="scopes"><%= it.t('keys.scopes') %></label>
<input id="scopes" name="scopes" value="all">
<label for="days"><%= it.t('keys.days') %></label>
<input id="days" name="days" inputmode="numeric" value="365">
<div><button type="submit"><%= it.t('keys.create') %></button></div>
</fieldset></form>
<% } %>`,

  key: `<% if (it.rolled) { %>
<div class="notice" role="status"><p><%= it.t('key.rolled', { old: it.rolled.previous_key.id, id: it.rolled.id, until: it.rolled.previous_key.expires_at }) %></p>
<p><%= it.t('keys.created', { id: it.rolled.id }) %></p>
<p><code id="new-key" class="secret"><%= it.rolled.key %></code> <button type="button" data-copy="new-key" data-copied="<%= it.t('keys.copied') %>"><%= it.t('keys.copy') %></button></p></div>
<% } %>
<dl>
<dt><%= it.t('field.prefix') %></dt><dd><code><%= it.key.display_prefix %></code></dd>
<dt><%= it.t('field.mode') %></dt><dd><%= it.key.mode %></dd>
<dt><%= it.t('field.scopes') %></dt><dd><%= it.key.scopes.join(', ') %></dd>
<dt><%= it.t('field.state') %></dt><dd id="key-state"><%= it.t('key.state.' + it.key.status) %></dd>
<dt><%= it.t('field.expires_at') %></dt><dd><%= it.key.expires_at %></dd>
<dt><%= it.t('field.last_used_at') %></dt><dd><%= it.key.last_used_at ?? it.t('common.none') %></dd>
<dt><%= it.t('field.created_at') %></dt><dd><%= it.key.created_at %></dd>
</dl>
<p><a href="/requests?company=<%= it.company.id %>&amp;key=<%= it.key.id %>"><%= it.t('nav.requests') %></a> · <a href="/usage?company=<%= it.company.id %>&amp;key=<%= it.key.id %>"><%= it.t('company.usage') %></a></p>
<% if (it.can.support && it.key.status === 'active') { %>
<form method="post" action="/companies/<%= it.company.id %>/keys/<%= it.key.id %>/roll">
<fieldset><legend><%= it.t('key.roll') %></legend>
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<label for="grace"><%= it.t('key.grace') %></label>
<input id="grace" name="grace" value="24h">
<div><button type="submit"><%= it.t('key.roll') %></button></div>
</fieldset></form>
<form method="post" action="/companies/<%= it.company.id %>/keys/<%= it.key.id %>/revoke">
<fieldset><legend><%= it.t('key.revoke') %></legend>
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<label class="check"><input type="checkbox" id="confirm" name="confirm" value="yes"> <%= it.t('key.revoke_confirm') %></label>
<div><button type="submit" class="danger"><%= it.t('key.revoke') %></button></div>
</fieldset></form>
<% } %>`,

  webhooks: `<% if (it.endpoints.length === 0) { %><p><%= it.t('webhooks.none') %></p><% } else { %>
<table><thead><tr><th scope="col"><%= it.t('field.id') %></th><th scope="col"><%= it.t('field.url') %></th><th scope="col"><%= it.t('field.events') %></th><th scope="col"><%= it.t('field.enabled') %></th><th scope="col"><%= it.t('field.last_success_at') %></th><th scope="col"><%= it.t('field.failing_since') %></th></tr></thead><tbody>
<% for (const e of it.endpoints) { %>
<tr><td><a href="/companies/<%= it.company.id %>/webhooks/<%= e.id %>"><%= e.id %></a></td><td><%= e.url %></td><td><%= e.events.join(', ') %></td><td><%= it.t(e.enabled ? 'common.yes' : 'common.no') %></td><td><%= e.last_success_at ?? it.t('common.none') %></td><td><%= e.failing_since ?? it.t('common.none') %></td></tr>
<% } %>
</tbody></table><% } %>`,

  endpoint: `<dl>
<dt><%= it.t('field.url') %></dt><dd><%= it.endpoint.url %></dd>
<dt><%= it.t('field.events') %></dt><dd><%= it.endpoint.events.join(', ') %></dd>
<dt><%= it.t('field.enabled') %></dt><dd><%= it.t(it.endpoint.enabled ? 'common.yes' : 'common.no') %></dd>
</dl>
<% if (it.can.support) { %>
<form method="post" action="/companies/<%= it.company.id %>/webhooks/<%= it.endpoint.id %>/test">
<fieldset><legend><%= it.t('endpoint.test') %></legend>
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<label for="test-type"><%= it.t('endpoint.test_type') %></label>
<select id="test-type" name="type"><option value=""><%= it.t('endpoint.ping') %></option><% for (const type of it.eventTypes) { %><option value="<%= type %>"><%= type %></option><% } %></select>
<div><button type="submit"><%= it.t('endpoint.test') %></button></div>
</fieldset></form>
<form method="post" action="/companies/<%= it.company.id %>/webhooks/<%= it.endpoint.id %>/replay">
<fieldset><legend><%= it.t('endpoint.replay') %></legend>
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<p><%= it.t('endpoint.replay_help') %></p>
<label for="since"><%= it.t('endpoint.since') %></label><input id="since" name="since" required placeholder="2026-11-27T08:00:00Z">
<label for="until"><%= it.t('endpoint.until') %></label><input id="until" name="until" placeholder="2026-11-27T12:00:00Z">
<div><button type="submit"><%= it.t('endpoint.replay') %></button></div>
</fieldset></form>
<% } %>
<h2><%= it.t('endpoint.deliveries') %></h2>
<% if (it.deliveries.length === 0) { %><p><%= it.t('endpoint.no_deliveries') %></p><% } else { %>
<table><thead><tr><th scope="col"><%= it.t('field.at') %></th><th scope="col"><%= it.t('field.event_id') %></th><th scope="col"><%= it.t('field.type') %></th><th scope="col"><%= it.t('field.attempts') %></th><th scope="col"><%= it.t('field.status') %></th><th scope="col"><%= it.t('field.duration_ms') %></th><th scope="col"><%= it.t('field.error_code') %></th><% if (it.can.support) { %><th scope="col"><%= it.t('webhooks.resend') %></th><% } %></tr></thead><tbody>
<% for (const d of it.deliveries) { %>
<tr><td><%= d.at %></td><td><code><%= d.event_id %></code></td><td><%= d.type %></td><td><%= d.attempt %></td><td><%= d.status %><%= d.status_code === null ? '' : ' (' + d.status_code + ')' %></td><td><%= d.latency_ms ?? '' %></td><td><%= d.error ?? '' %></td>
<% if (it.can.support) { %><td><form method="post" action="/companies/<%= it.company.id %>/webhooks/resend"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><input type="hidden" name="event" value="<%= d.event_id %>"><input type="hidden" name="endpoint" value="<%= it.endpoint.id %>"><button type="submit"><%= it.t('webhooks.resend') %></button></form></td><% } %></tr>
<% } %>
</tbody></table><% } %>`,

  requests: `<form method="get" action="/requests">
<fieldset><legend><%= it.t('requests.find') %></legend>
<label for="request_id"><%= it.t('field.request_id') %></label>
<input id="request_id" name="request_id" value="" placeholder="req_…"> <button type="submit"><%= it.t('requests.find_submit') %></button>
</fieldset></form>
<form method="get" action="/requests">
<fieldset><legend><%= it.t('requests.filter') %></legend>
<% if (!it.partner) { %><label for="company"><%= it.t('requests.company') %></label><input id="company" name="company" value="<%= it.filters.company ?? '' %>"><% } %>
<label for="key"><%= it.t('requests.key') %></label><input id="key" name="key" value="<%= it.filters.key ?? '' %>">
<label for="route"><%= it.t('requests.route') %></label><input id="route" name="route" value="<%= it.filters.route ?? '' %>">
<label for="status"><%= it.t('requests.status') %></label><input id="status" name="status" value="<%= it.filters.status ?? '' %>">
<label for="since"><%= it.t('requests.since') %></label><input id="since" name="since" value="<%= it.filters.since ?? '' %>">
<div><button type="submit"><%= it.t('common.filter') %></button></div>
</fieldset></form>
<% if (it.requests === null) { %><p><%= it.t('requests.need_company') %></p><% } else if (it.requests.length === 0) { %><p><%= it.t('requests.none') %></p><% } else { %>
<table><thead><tr><th scope="col"><%= it.t('field.at') %></th><th scope="col"><%= it.t('field.request_id') %></th><th scope="col"><%= it.t('field.method') %></th><th scope="col"><%= it.t('field.route') %></th><th scope="col"><%= it.t('field.status') %></th><th scope="col"><%= it.t('field.error_code') %></th><th scope="col"><%= it.t('field.key') %></th><th scope="col"><%= it.t('field.duration_ms') %></th></tr></thead><tbody>
<% for (const r of it.requests) { %>
<tr><td><%= r.at %></td><td><a href="/requests/<%= r.request_id %>"><code><%= r.request_id %></code></a></td><td><%= r.method %></td><td><%= r.route %></td><td><%= r.status %></td><td><%= r.error_code ?? '' %></td><td><%= r.api_key_id %></td><td><%= r.duration_ms %></td></tr>
<% } %>
</tbody></table><% } %>`,

  request: `<dl>
<dt><%= it.t('field.company') %></dt><dd><a href="/companies/<%= it.r.company_id %>"><%= it.r.company_id %></a> <%= it.r.company_name ?? '' %></dd>
<dt><%= it.t('field.at') %></dt><dd><%= it.r.at %></dd>
<dt><%= it.t('field.method') %></dt><dd><%= it.r.method %></dd>
<dt><%= it.t('field.route') %></dt><dd><%= it.r.route %></dd>
<dt><%= it.t('field.status') %></dt><dd id="request-status"><%= it.r.status %></dd>
<dt><%= it.t('field.error_code') %></dt><dd><%= it.r.error_code ?? it.t('common.none') %></dd>
<dt><%= it.t('field.duration_ms') %></dt><dd><%= it.r.duration_ms %></dd>
<dt><%= it.t('field.key') %></dt><dd><a href="/companies/<%= it.r.company_id %>/keys/<%= it.r.api_key_id %>"><%= it.r.api_key_id %></a></dd>
<dt><%= it.t('field.idempotency_key') %></dt><dd><%= it.r.idempotency_key ?? it.t('common.none') %></dd>
<dt><%= it.t('field.replayed') %></dt><dd><%= it.t(it.r.replayed ? 'common.yes' : 'common.no') %></dd>
<dt><%= it.t('field.client_ip') %></dt><dd><%= it.r.client_ip %></dd>
</dl>
<p><%= it.t('request.no_body') %></p>
<h2><%= it.t('request.record') %></h2>
<% if (!it.record) { %><p><%= it.t('request.no_record') %></p><% } else { %>
<dl>
<dt><%= it.t('field.state') %></dt><dd><%= it.record.state %> <%= it.record.response_status ?? '' %></dd>
<dt><%= it.t('request.resource') %></dt><dd><%= it.record.resource ? it.record.resource.type + ' ' + it.record.resource.id : it.t('common.none') %></dd>
<dt><%= it.t('field.request_id') %></dt><dd><%= it.record.created_by_request_id ?? '' %></dd>
<dt><%= it.t('field.expires_at') %></dt><dd><%= it.record.expires_at %></dd>
</dl>
<% if (it.answer !== null) { %><h3><%= it.t('request.answer') %></h3><pre id="stored-answer"><%= it.answer %></pre><% } %>
<% } %>
<h2><%= it.t('request.events') %></h2>
<% if (it.events.length === 0) { %><p><%= it.t('request.no_events') %></p><% } else { %><ul>
<% for (const e of it.events) { %><li><code><%= e.event_id %></code> <%= e.type %> (<%= e.created_at %>)<ul>
<% for (const d of e.deliveries) { %><li><%= it.t('endpoint.title', { id: d.endpoint_id }) %>: <%= d.status %>, <%= it.t('field.attempts') %> <%= d.attempts.length %></li><% } %>
</ul></li><% } %></ul><% } %>`,

  usage: `<form method="get" action="/usage">
<fieldset><legend><%= it.t('usage.choose') %></legend>
<% if (!it.partner) { %><label for="company"><%= it.t('requests.company') %></label><input id="company" name="company" inputmode="numeric" value="<%= it.filters.company %>"><% } %>
<label for="key"><%= it.t('requests.key') %></label><input id="key" name="key" inputmode="numeric" value="<%= it.filters.key %>">
<label for="window"><%= it.t('usage.window') %></label>
<select id="window" name="window"><% for (const w of it.windows) { %><option value="<%= w %>"<%~ w === it.filters.window ? ' selected' : '' %>><%= it.t('usage.window_' + w) %></option><% } %></select>
<div><button type="submit"><%= it.t('common.filter') %></button></div>
</fieldset></form>
<% if (!it.report) { %><p><%= it.t('usage.need_company') %></p><% } else { const r = it.report; %>
<p><%= it.t('usage.period', { from: r.from, to: r.to }) %></p>
<h2><%= it.t('usage.totals') %></h2>
<table id="usage-totals"><caption><%= it.t('usage.totals') %></caption><thead><tr><th scope="col"><%= it.t('usage.measure') %></th><th scope="col"><%= it.t('usage.value') %></th></tr></thead><tbody>
<% for (const f of ['requests', 'status_2xx', 'status_3xx', 'status_4xx', 'status_5xx', 'rate_limited', 'writes', 'deprecated']) { %>
<tr><th scope="row"><%= it.t('usage.' + f) %></th><td data-usage="<%= f %>"><%= r.totals[f] %></td></tr>
<% } %>
<tr><th scope="row">p50 (ms)</th><td data-usage="p50_ms"><%= r.totals.p50_ms === null ? it.t('common.none') : '≤ ' + r.totals.p50_ms %></td></tr>
<tr><th scope="row">p99 (ms)</th><td data-usage="p99_ms"><%= r.totals.p99_ms === null ? it.t('common.none') : '≤ ' + r.totals.p99_ms %></td></tr>
</tbody></table>
<h2><%= it.t('usage.chart_status') %></h2>
<figure><%~ it.charts.status %></figure>
<h2><%= it.t('usage.chart_latency') %></h2>
<figure><%~ it.charts.latency %></figure>
<h2><%= it.t('usage.error_codes') %></h2>
<% if (r.error_codes.length === 0) { %><p><%= it.t('common.none') %></p><% } else { %>
<table id="usage-errors"><thead><tr><th scope="col"><%= it.t('field.error_code') %></th><th scope="col"><%= it.t('usage.requests') %></th></tr></thead><tbody>
<% for (const e of r.error_codes) { %><tr><td><code><%= e.code %></code></td><td data-error="<%= e.code %>"><%= e.requests %></td></tr><% } %>
</tbody></table><% } %>
<h2><%= it.t('usage.deprecated_uses') %></h2>
<% if (r.deprecated_uses.length === 0) { %><p><%= it.t('common.none') %></p><% } else { %>
<table id="usage-deprecated"><thead><tr><th scope="col"><%= it.t('usage.item') %></th><th scope="col"><%= it.t('usage.requests') %></th></tr></thead><tbody>
<% for (const d of r.deprecated_uses) { %><tr><td><code><%= d.item %></code></td><td><%= d.requests %></td></tr><% } %>
</tbody></table><% } %>
<h2><%= it.t('usage.series') %></h2>
<table id="usage-series"><thead><tr><th scope="col"><%= it.t('usage.from') %></th><% for (const f of ['requests', 'status_2xx', 'status_3xx', 'status_4xx', 'status_5xx', 'rate_limited', 'writes']) { %><th scope="col"><%= it.t('usage.' + f) %></th><% } %><th scope="col">p50 (ms)</th><th scope="col">p99 (ms)</th></tr></thead><tbody>
<% for (const p of r.series) { %><tr><th scope="row"><%= p.from %></th><% for (const f of ['requests', 'status_2xx', 'status_3xx', 'status_4xx', 'status_5xx', 'rate_limited', 'writes']) { %><td><%= p[f] %></td><% } %><td><%= p.p50_ms ?? '' %></td><td><%= p.p99_ms ?? '' %></td></tr><% } %>
</tbody></table>
<% } %>`,

  audit: `<form method="get" action="/audit">
<label for="company"><%= it.t('requests.company') %></label><input id="company" name="company" value="<%= it.filters.company ?? '' %>">
<label for="since"><%= it.t('requests.since') %></label><input id="since" name="since" value="<%= it.filters.since ?? '' %>">
<div><button type="submit"><%= it.t('common.filter') %></button></div>
</form>
<% if (it.entries.length === 0) { %><p><%= it.t('audit.none') %></p><% } else { %>
<table><thead><tr><th scope="col"><%= it.t('field.at') %></th><th scope="col"><%= it.t('field.actor') %></th><th scope="col"><%= it.t('field.command') %></th><th scope="col"><%= it.t('field.company') %></th><th scope="col"><%= it.t('field.object') %></th><th scope="col"><%= it.t('field.outcome') %></th></tr></thead><tbody>
<% for (const e of it.entries) { %>
<tr><td><%= e.at %></td><td><%= e.actor %></td><td><%= e.command %></td><td><%= e.company_id ?? '' %></td><td><%= e.object_type ?? '' %> <%= e.object_id ?? '' %></td><td><%= e.outcome %><%= e.detail.message ? ': ' + e.detail.message : '' %></td></tr>
<% } %>
</tbody></table><% } %>`,

  staff: `<% if (it.link) { %><p class="notice" role="status"><%= it.t('staff.link_once', { email: it.link.email, link: it.link.url }) %></p><% } %>
<table><thead><tr><th scope="col"><%= it.t('field.id') %></th><th scope="col"><%= it.t('field.email') %></th><th scope="col"><%= it.t('field.name') %></th><th scope="col"><%= it.t('field.role') %></th><th scope="col"><%= it.t('field.company') %></th><th scope="col"><%= it.t('field.state') %></th><th scope="col"></th></tr></thead><tbody>
<% for (const s of it.staff) { %>
<tr><td><%= s.id %></td><td><%= s.email %></td><td><%= s.name %></td><td><%= it.t('role.' + s.role) %></td><td><%= s.company_id ?? '' %></td><td><%= it.t('staff.state.' + s.state) %></td><td>
<% if (s.state !== 'disabled') { %>
<form class="inline" method="post" action="/staff/<%= s.id %>/reset"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button type="submit"><%= it.t('staff.reset') %></button></form>
<form class="inline" method="post" action="/staff/<%= s.id %>/disable"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button type="submit" class="danger"><%= it.t('staff.disable') %></button></form>
<% } %></td></tr>
<% } %>
</tbody></table>
<form method="post" action="/staff">
<fieldset><legend><%= it.t('staff.create') %></legend>
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<label for="email"><%= it.t('field.email') %></label><input id="email" name="email" type="email" required>
<label for="name"><%= it.t('field.name') %></label><input id="name" name="name" required>
<label for="role"><%= it.t('field.role') %></label>
<select id="role" name="role"><% for (const r of ['viewer', 'support', 'admin', 'partner']) { %><option value="<%= r %>"><%= it.t('role.' + r) %></option><% } %></select>
<label for="company"><%= it.t('staff.company') %></label><input id="company" name="company" inputmode="numeric">
<div><button type="submit"><%= it.t('staff.create') %></button></div>
</fieldset></form>`,
};

for (const [name, template] of Object.entries(TEMPLATES)) eta.loadTemplate(`@${name}`, template);

export type ViewName = Exclude<keyof typeof TEMPLATES & string, 'layout'>;

export function renderView(name: string, data: object): string {
  return eta.render(`@${name}`, data);
}
