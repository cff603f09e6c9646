// The systemd unit (deploy/invoicing.service) as systemd itself rates it: issue 38's "the unit adds
// the cheap directives (exposure at most 3.0 in systemd-analyze security)", and the private
// runtime directory where the admin socket lives ($RUNTIME_DIRECTORY, /run/invoicing).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const UNIT = fileURLToPath(new URL('../../deploy/invoicing.service', import.meta.url));
const text = readFileSync(UNIT, 'utf8');

/** The values of `key=` in the unit, in order (a key may be given several times). */
function values(key: string): string[] {
  return [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!.trim());
}

const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const hasAnalyze = analyze.status === 0;

describe('deploy/invoicing.service', () => {
  it('has a private runtime directory for the admin socket (RuntimeDirectory=invoicing, mode 0700)', () => {
    expect(values('RuntimeDirectory')).toEqual(['invoicing']);
    expect(values('RuntimeDirectoryMode')).toEqual(['0700']);
  });

  it('sets the cheap hardening directives (issue 38: exposure at most 3.0)', () => {
    for (const [key, value] of Object.entries({
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      PrivateUsers: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectKernelLogs: 'yes',
      ProtectControlGroups: 'yes',
      ProtectClock: 'yes',
      ProtectHostname: 'yes',
      ProtectProc: 'invisible',
      RestrictNamespaces: 'yes',
      RestrictRealtime: 'yes',
      RestrictSUIDSGID: 'yes',
      LockPersonality: 'yes',
      SystemCallArchitectures: 'native',
      CapabilityBoundingSet: '',
      UMask: '0077',
    }))
      expect(values(key), key).toEqual([value]);
    expect(values('SystemCallFilter')).toEqual(['@system-service', '~@privileged']);
  });

  it.runIf(hasAnalyze)(
    "systemd-analyze security --offline rates it at most 3.0, and reads every key where it is (no 'Unknown key')",
    () => {
      const result = spawnSync('systemd-analyze', ['security', '--offline=yes', '--no-pager', UNIT], {
        encoding: 'utf8',
      });
      const output = `${result.stdout}${result.stderr}`;
      const exposure = /Overall exposure level for [^:]+: ([\d.]+)/.exec(output)?.[1];
      expect(exposure, output).toBeDefined();
      expect(Number(exposure)).toBeLessThanOrEqual(3.0);
      expect(output).not.toMatch(/Unknown key|Unknown section/);
    },
  );
});
