#!/usr/bin/env node
/**
 * Init container of HA Ironic pods: issues this replica's JSON-RPC certificate, signed by the private
 * CA, for the node IP (and the pod IP), and writes it where the ironic container reads it.
 *   RPC_CA_DIR    directory with the CA's tls.crt and tls.key
 *   RPC_CERT_DIR  directory to write tls.crt, tls.key and ca.crt into
 *   HOST_IP, POD_IP  addresses to certify (from the downward API)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { issueRpcCertificate } from '../crypto/rpc-ca.js';

export type IssuerEnv = Readonly<Record<string, string | undefined>>;

/** Issues and writes the certificate; returns the message to print. Throws with a clear message on bad input. */
export const issueFromEnvironment = (env: IssuerEnv, now: Date): string => {
  const caDir = env['RPC_CA_DIR'];
  const outDir = env['RPC_CERT_DIR'];
  if (caDir === undefined || outDir === undefined) throw new Error('RPC_CA_DIR and RPC_CERT_DIR must be set');
  const ips = [env['HOST_IP'], env['POD_IP']].filter((ip): ip is string => ip !== undefined && ip !== '');
  if (ips.length === 0) throw new Error('HOST_IP or POD_IP must be set');
  const ca = { certPem: readFileSync(join(caDir, 'tls.crt'), 'utf8'), keyPem: readFileSync(join(caDir, 'tls.key'), 'utf8') };
  const leaf = issueRpcCertificate({ ca, ips, now });
  writeFileSync(join(outDir, 'tls.key'), leaf.keyPem, { mode: 0o600 });
  writeFileSync(join(outDir, 'tls.crt'), leaf.certPem, { mode: 0o644 });
  writeFileSync(join(outDir, 'ca.crt'), ca.certPem, { mode: 0o644 });
  return `issued a JSON-RPC certificate for ${[...new Set(ips)].join(', ')}`;
};

/* c8 ignore start */
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    console.log(issueFromEnvironment(process.env, new Date()));
  } catch (error) {
    console.error(`rpc-certificate: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
/* c8 ignore stop */
