import t from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import forge from 'node-forge';
import { ConfigError } from '../../src/config.js';
import { captureLogs, server, thrownBy } from './support.js';
import { tcpAddress } from '../helpers/net.js';

type Pem = { readonly cert: string; readonly key: string };

/** A self-signed certificate for 127.0.0.1 (the key from node's crypto: forge's RSA is slow). */
const selfSigned = (serial: string): Pem => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  cert.serialNumber = serial;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 3_600_000);
  const subject = [{ name: 'commonName', value: `hooks-${serial}` }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
    { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: privateKey };
};

/** Writes both files atomically (as the kubelet swaps a Secret volume). */
const install = (dir: string, pem: Pem): void => {
  writeFileSync(join(dir, 'tls.crt.new'), pem.cert);
  writeFileSync(join(dir, 'tls.key.new'), pem.key);
  renameSync(join(dir, 'tls.key.new'), join(dir, 'tls.key'));
  renameSync(join(dir, 'tls.crt.new'), join(dir, 'tls.crt'));
};

/** GET /healthz over a new TLS connection that trusts `ca`; the serial number of the served certificate. */
const servedSerial = (port: number, ca: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', ca, agent: false }, (res) => {
      const serial = res.socket instanceof TLSSocket ? (res.socket.getPeerX509Certificate()?.serialNumber ?? '') : '';
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(serial) : reject(new Error(`status ${String(res.statusCode)}`))));
    });
    req.on('error', reject);
    req.end();
  });

t.test('HTTPS with the configured certificate, reloaded when the files change', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hooks-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = selfSigned('0a01');
  const second = selfSigned('0a02');
  install(dir, first);
  const logs = captureLogs();
  const app = server(
    { tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') }, reloadIntervalMs: 25, logLevel: 'info' },
    { logger: true, logStream: logs.stream },
  );
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = tcpAddress(app.server);

  t.equal(await servedSerial(port, first.cert), '0A01', 'the first certificate is served');
  await t.rejects(servedSerial(port, second.cert), 'a client that trusts only the second one refuses it');

  // Half a rotation (a new certificate, the old key) is not served: the pair does not match yet.
  writeFileSync(join(dir, 'tls.crt'), second.cert);
  await sleep(150);
  t.equal(await servedSerial(port, first.cert), '0A01', 'a mismatched pair is not loaded');
  t.match(logs.text(), /keeping the current TLS certificate/);

  install(dir, second);
  let serial = '';
  for (let i = 0; i < 200 && serial !== '0A02'; i += 1) {
    await sleep(25);
    serial = await servedSerial(port, second.cert).catch(() => '');
  }
  t.equal(serial, '0A02', 'the new certificate is served without a restart');
  t.match(logs.text(), /TLS certificate reloaded/);
  t.notMatch(logs.text(), /PRIVATE KEY|BEGIN CERTIFICATE/, 'no PEM in the logs');
});

t.test('unusable certificate files stop the start with the variable named', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hooks-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const pem = selfSigned('01');
  const other = selfSigned('02');
  writeFileSync(join(dir, 'tls.crt'), pem.cert);
  writeFileSync(join(dir, 'tls.key'), other.key);
  writeFileSync(join(dir, 'garbage'), 'not a certificate');
  const cases: [{ certFile: string; keyFile: string }, RegExp][] = [
    [{ certFile: join(dir, 'missing.crt'), keyFile: join(dir, 'tls.key') }, /^TLS_CERT_FILE: cannot read .*missing.crt \(ENOENT\)/],
    [{ certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'missing.key') }, /^TLS_KEY_FILE: cannot read/],
    [{ certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') }, /^TLS_CERT_FILE .* and TLS_KEY_FILE .* are not a usable certificate and key/],
    [{ certFile: join(dir, 'garbage'), keyFile: join(dir, 'tls.key') }, /are not a usable certificate and key/],
  ];
  for (const [tls, message] of cases) {
    t.match(
      thrownBy(() => server({ tls })),
      { message },
      message.source,
    );
    t.ok(thrownBy(() => server({ tls })) instanceof ConfigError, 'a ConfigError (exit code 2)');
  }
});
