// The failover rehearsal's certificates, made by the script an operator runs
// (deploy/tls/make-certs.sh): the cluster's CA, one certificate for etcd, one per Patroni node (its
// name, the name DATABASE_URL uses through HAProxy, localhost and 127.0.0.1, where everything listens
// here), one for the restored cluster and one for the backup host (pgBackRest checks a TLS host's
// name against the certificate's DNS names only: localhost stands for pgN and backup.invoicing.internal). Each node gets them in tls/ next to its data directory as
// node.crt, node.key and ca.crt, as patroni.yml expects. And HTTPS requests that trust only that
// CA, with a client certificate when asked (etcd and Patroni's REST API).
import { execFile } from 'node:child_process';
import { chownSync, copyFileSync, readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../../scripts/lib/repo.js';

const run = promisify(execFile);

export const MAKE_CERTS = path.join(repoRoot, 'deploy/tls/make-certs.sh');
/** The name every node's certificate carries and HAProxy checks (PG_SERVICE_NAME). */
export const SERVICE_NAME = 'postgres.invoicing.internal';

export interface Certificates {
  dir: string;
  ca: string;
  /** `${dir}/${name}.crt` and `.key`. */
  cert(name: string): { cert: string; key: string };
}

/**
 * The CA and a certificate per name. `hostsOnly`: names whose certificate does not carry
 * SERVICE_NAME (the backup host is no PostgreSQL server).
 */
export async function makeCertificates(
  dir: string,
  names: string[],
  hostsOnly: string[] = [],
): Promise<Certificates> {
  await run('bash', [MAKE_CERTS, dir, 'ca']);
  for (const name of names) {
    const sans = hostsOnly.includes(name) ? [] : [SERVICE_NAME];
    await run('bash', [MAKE_CERTS, dir, 'cert', name, ...sans, 'localhost', '127.0.0.1']);
  }
  return {
    dir,
    ca: path.join(dir, 'ca.crt'),
    cert: (name) => ({ cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) }),
  };
}

/**
 * `tlsDir`/node.crt, node.key and ca.crt: a node's files where patroni.yml (and PostgreSQL's
 * relative ssl_cert_file) look, owned by the user PostgreSQL runs as.
 */
export function installNodeCertificate(
  certificates: Certificates,
  name: string,
  tlsDir: string,
  owner: { uid: number | null; gid: number | null },
): { cert: string; key: string; ca: string } {
  const files = {
    cert: path.join(tlsDir, 'node.crt'),
    key: path.join(tlsDir, 'node.key'),
    ca: path.join(tlsDir, 'ca.crt'),
  };
  const source = certificates.cert(name);
  copyFileSync(source.cert, files.cert);
  copyFileSync(source.key, files.key);
  copyFileSync(certificates.ca, files.ca);
  if (owner.uid !== null && owner.gid !== null)
    for (const file of Object.values(files)) chownSync(file, owner.uid, owner.gid);
  return files;
}

export interface TlsRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The CA the server's certificate must chain to. */
  ca: string;
  /** A client certificate and key (files); none when left out. */
  client?: { cert: string; key: string };
  timeoutMs?: number;
}

/** One HTTPS request trusting only `ca`; the status and text, or a thrown error. */
export function tlsRequest(url: string, options: TlsRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        ca: readFileSync(options.ca),
        cert: options.client ? readFileSync(options.client.cert) : undefined,
        key: options.client ? readFileSync(options.client.key) : undefined,
        timeout: options.timeoutMs ?? 2000,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () =>
      request.destroy(new Error(`${url}: no answer within ${options.timeoutMs ?? 2000} ms`)),
    );
    request.on('error', reject);
    request.end(options.body);
  });
}
