/**
 * The rendered profile in a real Apache httpd (Debian's apache2, skipped where it is not installed): a
 * virtual host written as ironic-image's httpd-ironic-api.conf.j2 writes it from the rendered variables, probed
 * with `openssl s_client`. The client drops its own security level so that a refusal is the server's.
 */
import t from 'tap';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { containerOf, envOf, podOf, syncFor } from '../helpers/render.js';
import { freePort } from '../support/processes.js';

const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';

/** The API vhost's TLS lines as the image's template renders them from the variables. */
const vhostLines = (env: Record<string, string>): string[] => [
  `SSLProtocol ${env['IRONIC_SSL_PROTOCOL'] ?? '-ALL +TLSv1.2 +TLSv1.3'}`,
  ...(env['IRONIC_TLS_12_CIPHERS'] !== undefined ? [`SSLCipherSuite ${env['IRONIC_TLS_12_CIPHERS']}`] : []),
  ...(env['IRONIC_TLS_CURVES'] !== undefined ? [`SSLOpenSSLConfCmd Curves ${env['IRONIC_TLS_CURVES']}`] : []),
  ...(env['IRONIC_TLS_ENFORCE_SERVER_CIPHER_ORDER'] === 'true' ? ['SSLHonorCipherOrder on'] : []),
];

const httpdEnv = async (profile: Record<string, unknown>): Promise<Record<string, string>> =>
  envOf(containerOf(podOf((await syncFor({ tls: { generateCertificate: true, profile } })).children), 'httpd'));

/** Whether a client with these options completes a handshake. */
const handshake = (port: number, options: readonly string[]): boolean =>
  spawnSync('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', 'localhost', ...options], { input: '', timeout: 10_000 }).status === 0;

const startHttpd = async (dir: string, lines: readonly string[]): Promise<{ port: number; stop: () => void }> => {
  const port = await freePort();
  const conf = join(dir, 'httpd.conf');
  writeFileSync(
    conf,
    [
      `ServerRoot ${dir}`,
      'ServerName localhost',
      `PidFile ${dir}/httpd.pid`,
      `ErrorLog ${dir}/error.log`,
      `LoadModule mpm_event_module ${MODULES}/mod_mpm_event.so`,
      `LoadModule ssl_module ${MODULES}/mod_ssl.so`,
      ...(process.getuid?.() === 0 ? ['User nobody', 'Group nogroup'] : []),
      `Listen 127.0.0.1:${port}`,
      `<VirtualHost 127.0.0.1:${port}>`,
      '  SSLEngine on',
      ...lines.map((line) => `  ${line}`),
      `  SSLCertificateFile ${dir}/tls.crt`,
      `  SSLCertificateKeyFile ${dir}/tls.key`,
      '</VirtualHost>',
      '',
    ].join('\n'),
  );
  const child = spawn(APACHE, ['-f', conf, '-DFOREGROUND'], { stdio: 'ignore' });
  for (let i = 0; i < 50 && !handshake(port, []) && child.exitCode === null; i += 1) await sleep(100);
  return { port, stop: () => child.kill('SIGTERM') };
};

t.test(
  'httpd with the rendered profile refuses what the profile excludes',
  { skip: existsSync(APACHE) ? false : 'Debian apache2 is not installed' },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-profile-httpd-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', `${dir}/tls.key`, '-out', `${dir}/tls.crt`],
      {
        stdio: 'ignore',
      },
    );
    const weak = ['-cipher', 'DEFAULT:@SECLEVEL=0'];
    const cases: readonly { profile: Record<string, unknown>; accepts: readonly (readonly string[])[]; refuses: readonly (readonly string[])[] }[] = [
      {
        profile: { type: 'Intermediate' },
        accepts: [['-tls1_2'], ['-tls1_3']],
        refuses: [
          ['-tls1_1', ...weak],
          ['-tls1_2', '-cipher', 'AES128-SHA:@SECLEVEL=0'],
        ],
      },
      // The control: the CBC suite Intermediate refuses is the profile's choice, not the server's OpenSSL. (TLS 1.1
      // is refused by OpenSSL 3 itself at its default security level, even with Old: Modern's refusal of TLS 1.2
      // is what shows the profile's SSLProtocol at work.)
      { profile: { type: 'Old' }, accepts: [['-tls1_2', '-cipher', 'AES128-SHA:@SECLEVEL=0']], refuses: [] },
      { profile: { type: 'Modern' }, accepts: [['-tls1_3']], refuses: [['-tls1_2'], ['-tls1_1', ...weak]] },
      {
        profile: { type: 'Custom', minTLSVersion: 'VersionTLS12', ciphers: ['ECDHE-RSA-AES256-GCM-SHA384'], curves: ['secp384r1'] },
        accepts: [['-tls1_2', '-cipher', 'ECDHE-RSA-AES256-GCM-SHA384']],
        refuses: [
          ['-tls1_2', '-cipher', 'ECDHE-RSA-AES128-GCM-SHA256'],
          ['-tls1_2', '-groups', 'X25519'],
        ],
      },
    ];
    for (const c of cases) {
      const server = await startHttpd(dir, vhostLines(await httpdEnv(c.profile)));
      try {
        for (const options of c.accepts) t.ok(handshake(server.port, options), `${String(c.profile['type'])} accepts ${options.join(' ')}`);
        for (const options of c.refuses) t.notOk(handshake(server.port, options), `${String(c.profile['type'])} refuses ${options.join(' ')}`);
      } finally {
        server.stop();
        await sleep(300);
      }
    }
    t.notMatch(existsSync(`${dir}/error.log`) ? readFileSync(`${dir}/error.log`, 'utf8') : '', /AH00526|Syntax error/, 'httpd took the configuration');
  },
);
