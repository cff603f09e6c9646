// `bin/invoicing staff create|list|disable|reset`: the people of the support console
// (src/operations/staff.ts), in the shape of src/cli/command.ts. Joined to the command table of
// src/cli/commands.ts; nothing here touches the database.
import type { OperationResult } from '../operations/index.js';
import { type Command, command, str, type TextContext } from './command.js';
import { table } from './output.js';

function setupLinkText(
  person: OperationResult<'staff.create'> | OperationResult<'staff.reset'>,
  { t, consoleUrl }: TextContext,
): string[] {
  return [
    `  ${t('cli.staff.link', { link: `${consoleUrl ?? ''}${person.setup_path}` })}`,
    `  ${t('cli.staff.link_valid', { until: person.setup_expires_at, email: person.email })}`,
    t('cli.staff.link_once', { id: person.id }),
  ];
}

export const STAFF_COMMANDS: readonly Command[] = [
  command({
    name: 'staff create',
    summary: 'cmd.staff create',
    usage: '--email E --name N --role admin|support|viewer|partner [--company ID]',
    help: 'cmd.staff create.help',
    options: { email: str, name: str, role: str, company: str },
    required: ['email', 'name', 'role'],
    operation: 'staff.create',
    args: (v) => ({ email: v.email, name: v.name, role: v.role, company: v.company }),
    text: (person, context) =>
      [
        person.company_id
          ? context.t('cli.staff.created_partner', {
              id: person.id,
              name: person.name,
              email: person.email,
              role: person.role,
              company: person.company_id,
            })
          : context.t('cli.staff.created', {
              id: person.id,
              name: person.name,
              email: person.email,
              role: person.role,
            }),
        ...setupLinkText(person, context),
      ].join('\n'),
  }),
  command({
    name: 'staff list',
    summary: 'cmd.staff list',
    usage: '',
    options: {},
    operation: 'staff.list',
    args: () => ({}),
    text: (result, { t }) =>
      result.staff.length === 0
        ? t('cli.staff.none')
        : table(t, result.staff, [
            ['col.id', 'id'],
            ['col.email', 'email'],
            ['col.name', 'name'],
            ['col.role', 'role'],
            ['col.company', 'company_id'],
            ['col.state', 'state'],
          ]),
  }),
  command({
    name: 'staff disable',
    summary: 'cmd.staff disable',
    usage: 'ID',
    options: {},
    positional: 'ID',
    operation: 'staff.disable',
    args: (_v, id) => ({ id }),
    text: (person, { t }) =>
      t('cli.staff.disabled', { id: person.id, email: person.email, count: person.sessions_ended }),
  }),
  command({
    name: 'staff reset',
    summary: 'cmd.staff reset',
    usage: 'ID',
    options: {},
    positional: 'ID',
    operation: 'staff.reset',
    args: (_v, id) => ({ id }),
    text: (person, context) =>
      [
        context.t('cli.staff.reset', { id: person.id, email: person.email, count: person.sessions_ended }),
        ...setupLinkText(person, context),
      ].join('\n'),
  }),
];
