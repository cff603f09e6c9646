import { userInfo } from 'node:os';

/** The OS user running this process: who did it, in the audit trail, unless --actor says. */
export function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    // a container user without a passwd entry
    return process.env.USER ?? `uid ${process.getuid?.() ?? '?'}`;
  }
}
