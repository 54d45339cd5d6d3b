/**
 * Network namespaces for the tests that run DHCP and DNS on a real network (dnsmasq, keepalived, dhclient): the
 * `ip` command, a check that this machine lets the test create namespaces (root), and a bounded wait.
 */
import type { Test } from 'tap';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export type IpResult = { status: number | null; stdout: string; stderr: string };

/** `ip` with these arguments, its status and output. */
export const ip = (...args: string[]): IpResult => {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

/** `ip` with these arguments; throws with its message when it fails. */
export const must = (...args: string[]): void => {
  const r = ip(...args);
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr}`);
};

/** Why this machine does not let the test create a network namespace (not root, or a kernel that refuses), if it does not. */
export const namespacesRefused = (probe: string): string | undefined => {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  const r = ip('netns', 'add', probe);
  if (r.status !== 0) return `ip netns add is refused here: ${r.stderr.trim()}`;
  ip('netns', 'del', probe);
  return undefined;
};

/**
 * Whether a test on a network of namespaces can run here: without root (or with a kernel that refuses namespaces)
 * it says why and passes as skipped; a missing program is a failure that names what .ci/run installs.
 */
export const networkTestCanRun = (t: Test, probe: string, programs: readonly string[], installed: string): boolean => {
  const refused = namespacesRefused(probe);
  if (refused !== undefined) {
    t.comment(`skipped: ${refused}; CI runs it as root`);
    t.pass('skipped');
    return false;
  }
  const missing = programs.filter((p) => !existsSync(p));
  t.same(missing, [], installed);
  return missing.length === 0;
};

/** Kills every process of a namespace and deletes it (the links in it go with it). */
export const deleteNamespace = (name: string): void => {
  const pids = ip('netns', 'pids', name)
    .stdout.split('\n')
    .filter((p) => p !== '');
  for (const pid of pids) spawnSync('kill', ['-9', pid]);
  ip('netns', 'del', name);
};

/** The first value `what` gives other than undefined, asked every 100 ms for at most `seconds` of real time. */
export const waitFor = async <T>(what: () => T | undefined, seconds: number): Promise<T | undefined> => {
  const deadline = performance.now() + seconds * 1000;
  for (;;) {
    const found = what();
    if (found !== undefined) return found;
    if (performance.now() >= deadline) return undefined;
    await sleep(100);
  }
};

/**
 * A dhclient script that brings the link up, configures the address it is given and appends `line` (shell words of
 * dhclient's variables) to `log` for every lease; with `flushOnLoss`, the address goes when the lease is lost.
 */
export const dhclientScript = (log: string, line: string, flushOnLoss = false): string =>
  [
    '#!/bin/sh',
    'case "$reason" in',
    '  PREINIT) ip link set dev "$interface" up ;;',
    '  BOUND|RENEW|REBIND|REBOOT)',
    '    ip addr replace "$new_ip_address/$new_subnet_mask" dev "$interface"',
    `    echo "${line}" >>${log} ;;`,
    ...(flushOnLoss ? ['  EXPIRE|FAIL|RELEASE|STOP) ip -4 addr flush dev "$interface" ;;'] : []),
    'esac',
    'exit 0',
    '',
  ].join('\n');
