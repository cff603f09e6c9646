// The yardstick: a bare node:http + pg server doing the same primary-key read of a customer as
// GET /customers/{id} (same visibility rule, same columns) and answering JSON. No framework, no
// auth, no limits, no logging: the API is measured as a fraction of this.
// Env: DATABASE_URL, PORT (0: any free port), COMPANY_ID. Prints {"url","pid"} once listening.
import { createServer } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const companyId = Number(process.env.COMPANY_ID);
const CUSTOMER_READ = `select id, name, type, email, phone, contact_number, nuit, address, created_at, updated_at
  from customers where id = $1 and (company_id = $2 or company_id is null)`;

const server = createServer((request, response) => {
  const match = /^\/customers\/(\d{1,9})$/.exec(request.url ?? '');
  if (request.method !== 'GET' || !match) {
    response.writeHead(404).end();
    return;
  }
  pool.query(CUSTOMER_READ, [Number(match[1]), companyId]).then(
    (result) => {
      const row = result.rows[0];
      const body = JSON.stringify(row ? { data: row } : { error: { code: 'resource_not_found' } });
      response.writeHead(row ? 200 : 404, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    },
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
