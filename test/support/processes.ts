/** What the tests that run real servers (mariadbd, apache2, the hook server) share: a free port, a stop, a temporary directory. */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Gives this test process, and every program it starts, a temporary directory of its own (TMPDIR), removed
 * when the process exits. mariadbd deletes every `#sql*` file of its temporary directory when it starts, so
 * two of them sharing /tmp (test files running side by side) delete each other's temporary tables, and
 * mariadb-install-db aborts.
 */
export const ownTmpdir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'test-tmp-'));
  process.env['TMPDIR'] = dir;
  process.once('exit', () => {
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
};

/** A TCP port on 127.0.0.1 that nothing listens on at this moment. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });

/** SIGTERM to a child process, resolved once it has exited (at once when it already has). */
export const stopProcess = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => {
      resolve();
    });
    child.kill('SIGTERM');
  });
