// `bin/invoicing staff create|list|disable|reset`: the people of the support console
// (src/operations/staff.ts), in the shape of src/cli/command.ts. Joined to the command table of
// src/cli/commands.ts; nothing here touches the database.
import type { OperationResult } from '../operations/index.js';
import { type Command, command, str, type TextContext } from './command.js';
import { table } from './output.js';

function setupLinkText(
  person: OperationResult<'staff.create'> | OperationResult<'staff.reset'>,
  context: TextContext,
): string[] {
  return [
    `  setup link: ${context.consoleUrl ?? ''}${person.setup_path}`,
    `  valid until ${person.setup_expires_at}, once. Send it to ${person.email} only: there they choose a password and enrol their second factor (TOTP).`,
    'The link is shown only this once; `bin/invoicing staff reset ID` makes a new one.',
  ];
}

export const STAFF_COMMANDS: readonly Command[] = [
  command({
    name: 'staff create',
    summary: 'a person of the support console (a setup link, valid 24 hours, shown once)',
    usage: '--email E --name N --role admin|support|viewer|partner [--company ID]',
    help: [
      '  --email E      their e-mail address (their login)',
      '  --name N       their name',
      "  --role R       viewer reads everything; support also enables and disables companies' API, creates,",
      '                 rolls and revokes keys, resends deliveries; admin also manages staff;',
      '                 partner sees one company (--company ID), read-only',
      '  --company ID   the company of a partner account',
    ].join('\n'),
    options: { email: str, name: str, role: str, company: str },
    required: ['email', 'name', 'role'],
    operation: 'staff.create',
    args: (v) => ({ email: v.email, name: v.name, role: v.role, company: v.company }),
    text: (person, context) =>
      [
        `Staff account ${person.id} created: ${person.name} <${person.email}>, ${person.role}${person.company_id ? ` of company ${person.company_id}` : ''}.`,
        ...setupLinkText(person, context),
      ].join('\n'),
  }),
  command({
    name: 'staff list',
    summary: 'the people of the support console',
    usage: '',
    help: '',
    options: {},
    operation: 'staff.list',
    args: () => ({}),
    text: (result) =>
      result.staff.length === 0
        ? 'No staff account yet: bin/invoicing staff create --email E --name N --role admin'
        : table(result.staff, [
            ['ID', 'id'],
            ['EMAIL', 'email'],
            ['NAME', 'name'],
            ['ROLE', 'role'],
            ['COMPANY', 'company_id'],
            ['STATE', 'state'],
          ]),
  }),
  command({
    name: 'staff disable',
    summary: "turn a person's console account off (their sessions end at once)",
    usage: 'ID',
    help: '',
    options: {},
    positional: 'ID',
    operation: 'staff.disable',
    args: (_v, id) => ({ id }),
    text: (person) =>
      `Staff account ${person.id} (${person.email}) disabled; ${person.sessions_ended} session(s) ended.`,
  }),
  command({
    name: 'staff reset',
    summary: 'a new setup link (password and second factor chosen again; sessions end at once)',
    usage: 'ID',
    help: '',
    options: {},
    positional: 'ID',
    operation: 'staff.reset',
    args: (_v, id) => ({ id }),
    text: (person, context) =>
      [
        `Staff account ${person.id} (${person.email}) reset; ${person.sessions_ended} session(s) ended.`,
        ...setupLinkText(person, context),
      ].join('\n'),
  }),
];
