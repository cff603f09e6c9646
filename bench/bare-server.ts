// The yardstick: a bare node:http + pg server doing the same primary-key read of a customer as
// GET /customers/{id} (same visibility rule, same columns) and answering JSON. No framework, no
// auth, no limits, no logging, no compression: the API is measured as a fraction of this.
// Two ways to run the read, side by side in one process (one pool):
// - GET /customers/{id}: a named prepared statement (pg's {name, text, values}): parsed and
//   planned once per connection, the real limit of the machine for one read;
// - GET /plain/customers/{id}: the same read as a plain parameterised query (parsed and planned
//   on every call), the reference the embedded PGlite is compared with.
// Env: DATABASE_URL, PORT (0: any free port), COMPANY_ID. Prints {"url","pid"} once listening.
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const companyId = Number(process.env.COMPANY_ID);
const CUSTOMER_READ = `select id, name, type, email, phone, contact_number, nuit, address, created_at, updated_at
  from customers where id = $1 and (company_id = $2 or company_id is null)`;
const STATEMENT_NAME = 'bare_customer_read';
const PATH = /^\/(plain\/)?customers\/(\d{1,9})$/;

function answer(response: ServerResponse, row: unknown): void {
  const body = JSON.stringify(row ? { data: row } : { error: { code: 'resource_not_found' } });
  response.writeHead(row ? 200 : 404, { 'content-type': 'application/json; charset=utf-8' }).end(body);
}

const server = createServer((request, response) => {
  const match = PATH.exec(request.url ?? '');
  if (request.method !== 'GET' || !match) {
    response.writeHead(404).end();
    return;
  }
  const values = [Number(match[2]), companyId];
  const query = match[1]
    ? pool.query(CUSTOMER_READ, values)
    : pool.query({ name: STATEMENT_NAME, text: CUSTOMER_READ, values });
  query.then(
    (result) => answer(response, result.rows[0]),
    () => response.writeHead(500).end(),
  );
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid })}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => server.close(() => pool.end().finally(() => process.exit(0))));
}
