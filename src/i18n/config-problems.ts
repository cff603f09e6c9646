// What is wrong with the environment a process starts with (src/config.ts), in both languages; part
// of the one catalog of src/i18n/catalog.ts. Variable names and the values an operator types stay
// as they are. The `config.value.*` texts say what a variable's value must be: their English is
// made into the `description` of its schema in src/config-variables.ts, and src/config.ts finds the
// text again from that description (test/config.unit.test.ts checks every variable's).
import type { CatalogText } from './text.js';

export const configProblemsPt = {
  'config.must_be': '{name} tem de ser {what}; recebi "{value}"',
  // A value that is or may carry a secret (declared `secret` in src/config-variables.ts) is never repeated.
  'config.must_be_hidden': '{name} tem de ser {what}',
  'config.time_zone': 'TZ_NAME não é um fuso horário conhecido; recebi "{value}"',
  'config.url': '{name} não é um URL válido',
  'config.ops_port': 'OPS_PORT tem de ser diferente de PORT (ambas {port})',
  'config.docs_port':
    'DOCS_PORT tem de ser diferente de {name} (ambos {port}): a documentação é servida na sua própria porta; escolha outra porta para DOCS_PORT, ou DOCS_PORT=off',
  'config.console_port':
    'CONSOLE_PORT tem de ser diferente de {name} (ambos {port}): a consola é servida na sua própria porta; escolha outra porta para CONSOLE_PORT, ou CONSOLE_PORT=off',
  'config.value.one_of': 'um de {values}',
  'config.value.port': 'um número inteiro de 0 a 65535',
  'config.value.port_or_off': 'uma porta de 0 a 65535, ou off',
  'config.value.port_from_1_or_off': 'uma porta de 1 a 65535, ou off',
  'config.value.host': 'um endereço ou nome de máquina',
  'config.value.postgres_url': 'um URL postgres:// ou postgresql://',
  'config.value.redis_url': 'um URL redis:// ou rediss://',
  'config.value.http_url': 'um URL http:// ou https://',
  'config.value.directory': 'uma pasta',
  'config.value.prefix': 'até 100 letras, algarismos, ".", "_", ":" ou "-"',
  'config.value.hex_key': '64 algarismos hexadecimais (32 bytes)',
  'config.value.time_zone': 'o nome de um fuso horário, como Africa/Maputo',
  'config.value.trust_proxy': 'true, false, um número de saltos, ou endereços/CIDR separados por vírgulas',
  'config.value.positive': 'um número inteiro positivo',
  'config.value.durations':
    'uma lista de durações separadas por vírgulas, como 5s,5m,2h (unidades ms, s, m, h, d; cada uma até 30d)',
  'config.value.milliseconds': 'milissegundos de 0 a 3600000',
} as const satisfies Record<string, CatalogText>;

export const configProblemsEn: Record<keyof typeof configProblemsPt, CatalogText> = {
  'config.must_be': '{name} must be {what}, got "{value}"',
  'config.must_be_hidden': '{name} must be {what}',
  'config.time_zone': 'TZ_NAME is not a known time zone, got "{value}"',
  'config.url': '{name} is not a valid URL',
  'config.ops_port': 'OPS_PORT must differ from PORT, both are {port}',
  'config.docs_port':
    'DOCS_PORT must differ from {name} (both {port}): the documentation is served on its own port; choose another port for DOCS_PORT, or DOCS_PORT=off',
  'config.console_port':
    'CONSOLE_PORT must differ from {name} (both {port}): the console is served on its own port; choose another port for CONSOLE_PORT, or CONSOLE_PORT=off',
  'config.value.one_of': 'one of {values}',
  'config.value.port': 'an integer from 0 to 65535',
  'config.value.port_or_off': 'a port from 0 to 65535, or off',
  'config.value.port_from_1_or_off': 'a port from 1 to 65535, or off',
  'config.value.host': 'an address or host name',
  'config.value.postgres_url': 'a postgres:// or postgresql:// URL',
  'config.value.redis_url': 'a redis:// or rediss:// URL',
  'config.value.http_url': 'an http:// or https:// URL',
  'config.value.directory': 'a directory',
  'config.value.prefix': 'up to 100 letters, digits, ".", "_", ":" or "-"',
  'config.value.hex_key': '64 hexadecimal digits (32 bytes)',
  'config.value.time_zone': 'a time zone name such as Africa/Maputo',
  'config.value.trust_proxy': 'true, false, a hop count, or comma-separated addresses/CIDRs',
  'config.value.positive': 'a positive integer',
  'config.value.durations':
    'a comma-separated list of durations such as 5s,5m,2h (units ms, s, m, h, d; each at most 30d)',
  'config.value.milliseconds': 'milliseconds from 0 to 3600000',
};
