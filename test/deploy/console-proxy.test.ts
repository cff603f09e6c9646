// issue 40, goal 1: "deploy/ shows it behind HAProxy with TLS". The shipped deploy/haproxy/console.cfg
// publishes the console over TLS only (plain HTTP redirects), tells it the scheme, health-checks
// it, and Debian's HAProxy accepts it beside haproxy.cfg (`haproxy -c`, a real certificate made
// here); the environment example gives the console an https CONSOLE_URL.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const path = (file: string) => fileURLToPath(new URL(`../../${file}`, import.meta.url));
const read = (file: string) => readFileSync(path(file), 'utf8');
const HAPROXY = '/usr/sbin/haproxy';

/** A section's lines, comments left out. */
function section(config: string, header: string): string[] {
  const lines = config.split('\n');
  const start = lines.findIndex((line) => line.trim() === header);
  expect(start, header).toBeGreaterThanOrEqual(0);
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break;
    const text = line.replace(/#.*$/, '').trim();
    if (text) body.push(text);
  }
  return body;
}

describe('the console behind HAProxy (deploy/haproxy/console.cfg)', () => {
  const config = read('deploy/haproxy/console.cfg');

  it('issue 40: a frontend console with TLS, plain HTTP redirected to https, HSTS, the scheme passed on; a health-checked backend', () => {
    const frontend = section(config, 'frontend console');
    expect(frontend.find((line) => line.startsWith('bind '))).toMatch(/ ssl crt "\$\{CONSOLE_CERT\}"/);
    expect(frontend).toContain('http-request set-header X-Forwarded-Proto https');
    expect(frontend.some((line) => /Strict-Transport-Security/.test(line))).toBe(true);
    expect(frontend).toContain('default_backend console');
    expect(section(config, 'frontend console_redirect')).toContain(
      'http-request redirect scheme https code 301',
    );
    const backend = section(config, 'backend console');
    expect(backend).toContain('http-check send meth GET uri /login');
    expect(backend.filter((line) => line.startsWith('server '))).not.toHaveLength(0);
    // The environment example names an https CONSOLE_URL, as the frontend serves.
    expect(read('deploy/invoicing.env.example')).toMatch(/^CONSOLE_URL=https:\/\//m);
  });

  it.skipIf(!existsSync(HAPROXY))(
    "issue 40: Debian's HAProxy accepts it with haproxy.cfg (haproxy -c)",
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'console-proxy-'));
      try {
        execFileSync(
          'openssl',
          [
            'req',
            '-x509',
            '-newkey',
            'ec',
            '-pkeyopt',
            'ec_paramgen_curve:P-256',
            '-nodes',
            '-days',
            '1',
            '-subj',
            '/CN=consola.test',
            '-keyout',
            join(dir, 'key.pem'),
            '-out',
            join(dir, 'crt.pem'),
          ],
          { stdio: 'ignore' },
        );
        const pem = join(dir, 'console.pem');
        writeFileSync(
          pem,
          readFileSync(join(dir, 'crt.pem'), 'utf8') + readFileSync(join(dir, 'key.pem'), 'utf8'),
        );
        const env = {
          ...process.env,
          INVOICING_API_BIND: '127.0.0.1:18080',
          INVOICING_1: '127.0.0.1:3000',
          INVOICING_2: '127.0.0.1:3010',
          INVOICING_3: '127.0.0.1:3020',
          INVOICING_1_OPS_PORT: '9464',
          INVOICING_2_OPS_PORT: '9474',
          INVOICING_3_OPS_PORT: '9484',
          HAPROXY_STATS_SOCKET: join(dir, 'admin.sock'),
          CONSOLE_BIND: '127.0.0.1:18443',
          CONSOLE_HTTP_BIND: '127.0.0.1:18081',
          CONSOLE_CERT: pem,
          CONSOLE_1: '127.0.0.1:3002',
          CONSOLE_2: '127.0.0.1:3012',
        };
        const out = execFileSync(
          HAPROXY,
          ['-c', '-f', path('deploy/haproxy/haproxy.cfg'), '-f', path('deploy/haproxy/console.cfg')],
          { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
        );
        expect(out).toMatch(/Configuration file is valid/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
