// The command line's refusals of its own (a start refused before anything is created, DATA_DIR
// held by another process, a restore that cannot be done, a company or key that does not exist),
// in both languages; part of the one
// catalog of src/i18n/catalog.ts. Their English is also what logs and the admin socket carry.
import type { CatalogText } from './text.js';

export const cliRefusalsPt = {
  'start.port_in_use':
    'a porta {port} está em uso em {host} ({variable}): pare o que lá escuta ou escolha outra {variable}',
  'start.port_in_use_docs':
    'a porta {port} está em uso em {host} ({variable}): pare o que lá escuta ou escolha outra {variable}, ou DOCS_PORT=off (o doc_url nunca pode levar ao que quer que lá escute)',
  'start.port_privileged':
    'a porta {port} precisa de mais privilégios do que este utilizador tem ({variable}): escolha uma porta acima de 1023',
  'start.not_an_address': '{host} não é um endereço desta máquina ({variable})',
  'start.unresolvable': 'não foi possível resolver {host} ({variable})',
  'start.cannot_listen': 'não é possível escutar em {host}:{port} ({variable}): {reason}',
  'start.data_dir_no_parent':
    'DATA_DIR {dir} não existe, nem o seu pai {parent}: DATA_DIR está mal escrito? Se estiver certo, crie primeiro o pai',
  'start.data_dir_file': 'DATA_DIR {dir} é um ficheiro, não uma pasta',
  'start.data_dir_foreign':
    'DATA_DIR {dir} tem outros ficheiros mas nenhuma base de dados embutida: recuso-me a criar uma aí; DATA_DIR está certo?',
  'start.data_dir_created':
    'DATA_DIR {dir} não existia: criado com uma base de dados embutida NOVA e VAZIA. Se esperava dados, pare já e corrija DATA_DIR.',
  'start.data_dir_empty': 'DATA_DIR {dir} estava vazio: a criar aí uma base de dados embutida NOVA.',
  'start.no_database':
    'não há nenhuma base de dados embutida em {dir} ({why}): DATA_DIR está certo? Este comando nunca cria uma. Aponte-o para a do servidor: DATA_DIR=/caminho/dos/dados/do/servidor bin/invoicing ... (o aviso de arranque do servidor indica o seu DATA_DIR), ou DATABASE_URL=... quando o servidor corre em PostgreSQL',
  'start.why_empty': 'DATA_DIR está vazio',
  'start.why_foreign': 'DATA_DIR tem outros ficheiros',
  'start.why_file': 'DATA_DIR é um ficheiro',
  'start.why_missing': 'DATA_DIR não existe',
  'start.socket_too_deep':
    'DATA_DIR {dir} é fundo demais para o socket de administração ({path} passa de {max} bytes, o limite do caminho de um socket unix), e nenhuma pasta de execução privada serve: corra o serviço com RUNTIME_DIRECTORY (systemd: RuntimeDirectory=invoicing) ou XDG_RUNTIME_DIR a apontar para uma pasta só sua em que mais ninguém possa escrever, ou use um DATA_DIR mais curto. O socket nunca é posto numa pasta partilhada como /tmp.',
  'lock.owner_unknown': 'outro processo',
  'lock.owner_server': 'o servidor (pid {pid})',
  'lock.owner_command': 'outro comando (pid {pid})',
  'cli.busy_no_answer':
    'a base de dados embutida em {dir} está a ser usada por {owner}, que não responde no seu socket de administração; tente de novo mais tarde',
  'serve.busy':
    'a base de dados embutida em {dir} já está a ser usada por {owner}; pare-o primeiro ou use outro DATA_DIR',
  'restore.postgres':
    'o restore repõe uma cópia da base de dados embutida; em PostgreSQL use o pg_restore (README: Backups)',
  'restore.unreadable': 'não é possível ler {file}: {reason}',
  'restore.no_parent': 'o pai de DATA_DIR ({parent}) não existe: DATA_DIR está mal escrito?',
  'restore.busy':
    'a base de dados embutida em {dir} está a ser usada por {owner}: pare-o primeiro, depois reponha',
  'restore.not_empty':
    'DATA_DIR {dir} não está vazio: o restore nunca substitui uma base de dados sem lhe ser pedido (--force põe a presente de lado)',
  'restore.not_ours': '{file} não é uma cópia da base de dados embutida deste serviço ({why})',
  'restore.no_pg_version': 'não tem PG_VERSION',
  'refused.company_missing': 'a empresa {id} não existe',
  'refused.key_missing': 'a chave da API {id} não existe',
  'refused.staff_missing': 'a conta da equipa {id} não existe',
  'refused.invoice_missing': 'a fatura {id} não existe',
} as const;

export const cliRefusalsEn: Record<keyof typeof cliRefusalsPt, CatalogText> = {
  'start.port_in_use':
    'port {port} is in use on {host} ({variable}): stop what listens there or choose another {variable}',
  'start.port_in_use_docs':
    'port {port} is in use on {host} ({variable}): stop what listens there or choose another {variable}, or DOCS_PORT=off (doc_url must never lead to whatever listens there)',
  'start.port_privileged':
    'port {port} needs more privileges than this user has ({variable}): choose a port above 1023',
  'start.not_an_address': '{host} is not an address of this machine ({variable})',
  'start.unresolvable': '{host} cannot be resolved ({variable})',
  'start.cannot_listen': 'cannot listen on {host}:{port} ({variable}): {reason}',
  'start.data_dir_no_parent':
    'DATA_DIR {dir} does not exist, nor does its parent {parent}: is DATA_DIR mistyped? Create the parent first if it is right',
  'start.data_dir_file': 'DATA_DIR {dir} is a file, not a directory',
  'start.data_dir_foreign':
    'DATA_DIR {dir} holds other files but no embedded database: refusing to create one there; is DATA_DIR right?',
  'start.data_dir_created':
    'DATA_DIR {dir} did not exist: created it with a NEW, EMPTY embedded database. If you expected existing data, stop now and fix DATA_DIR.',
  'start.data_dir_empty': 'DATA_DIR {dir} was empty: creating a NEW embedded database there.',
  'start.no_database':
    "there is no embedded database in {dir} ({why}): is DATA_DIR right? This command never creates one. Point it at the server's: DATA_DIR=/path/of/the/server/data bin/invoicing ... (the server's start banner names its DATA_DIR), or DATABASE_URL=... when the server runs on PostgreSQL",
  'start.why_empty': 'DATA_DIR is empty',
  'start.why_foreign': 'DATA_DIR holds other files',
  'start.why_file': 'DATA_DIR is a file',
  'start.why_missing': 'DATA_DIR does not exist',
  'start.socket_too_deep':
    'DATA_DIR {dir} is too deep for the admin socket ({path} is over {max} bytes, the limit of a unix socket path), and no private runtime directory fits one: run the service with RUNTIME_DIRECTORY (systemd: RuntimeDirectory=invoicing) or XDG_RUNTIME_DIR set to a directory of its own that no one else may write to, or use a shorter DATA_DIR. The socket is never put in a shared directory such as /tmp.',
  'lock.owner_unknown': 'another process',
  'lock.owner_server': 'the server (pid {pid})',
  'lock.owner_command': 'another command (pid {pid})',
  'cli.busy_no_answer':
    'the embedded database in {dir} is in use by {owner}, which does not answer on its admin socket; try again later',
  'serve.busy':
    'the embedded database in {dir} is already in use by {owner}; stop it first or use another DATA_DIR',
  'restore.postgres':
    'restore brings back a copy of the embedded database; on PostgreSQL use pg_restore (README: Backups)',
  'restore.unreadable': 'cannot read {file}: {reason}',
  'restore.no_parent': 'the parent of DATA_DIR ({parent}) does not exist: is DATA_DIR mistyped?',
  'restore.busy': 'the embedded database in {dir} is in use by {owner}: stop it first, then restore',
  'restore.not_empty':
    'DATA_DIR {dir} is not empty: restore never replaces a database unless told to (--force moves the present one aside)',
  'restore.not_ours': "{file} is not a backup of this service's embedded database ({why})",
  'restore.no_pg_version': 'no PG_VERSION in it',
  'refused.company_missing': 'company {id} does not exist',
  'refused.key_missing': 'API key {id} does not exist',
  'refused.staff_missing': 'staff account {id} does not exist',
  'refused.invoice_missing': 'invoice {id} does not exist',
};
