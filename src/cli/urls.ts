// The addresses the command line shows people (banners, curl examples): a wildcard host is
// reached through the loopback, an IPv6 address goes in brackets.
import { API_PREFIX } from '../app-constants.js';

export function publicBaseUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') && !shown.startsWith('[') ? `[${shown}]` : shown}:${port}`;
}

export function apiBaseUrl(host: string, port: number): string {
  return `${publicBaseUrl(host, port)}${API_PREFIX}`;
}

/** A line that works as printed: the key on the partner API's ping. */
export function curlLine(key: string, apiBaseUrl: string): string {
  return `curl -H "Authorization: Bearer ${key}" ${apiBaseUrl}/ping`;
}
