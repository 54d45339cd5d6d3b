#!/usr/bin/env node
/**
 * Init container of Ironic pods: issues this pod's certificate (the JSON-RPC certificate of an HA
 * replica, or the generated API certificate), signed by a private CA the hook keeps, and writes it where
 * the ironic and httpd containers read it. The certificate covers every address the conductor may
 * register or advertise: PROVISIONING_IP, the addresses of PROVISIONING_INTERFACE or of the interfaces
 * with PROVISIONING_MACS (waited for, as ironic-image does, unless PROVISIONING_IP is given), the node IP and the pod IP, plus the given
 * names and addresses.
 *   CA_DIR                      directory with the CA's tls.crt and tls.key (and ca.crt, the bundle to trust)
 *   CERT_DIR                    directory to write tls.crt, tls.key and ca.crt into
 *   (RPC_CA_DIR and RPC_CERT_DIR: the same, as pods rendered by earlier versions of the hooks set them)
 *   CERT_DNS_NAMES, CERT_IP_ADDRESSES  comma-separated names and addresses to cover as well
 *   CERT_VALIDITY_DAYS          lifetime of the certificate (default: until the CA expires)
 *   HOST_IP, POD_IP, PROVISIONING_IP, PROVISIONING_INTERFACE, PROVISIONING_MACS
 *   RPC_WAIT_SECONDS  how long to wait for an interface address (default 300; no wait with PROVISIONING_IP)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { issueCertificate } from '../crypto/rpc-ca.js';

export type IssuerEnv = Readonly<Record<string, string | undefined>>;
export type Interfaces = () => NodeJS.Dict<NetworkInterfaceInfo[]>;

const usable = (info: NetworkInterfaceInfo): boolean => !info.internal && !(info.family === 'IPv6' && info.address.toLowerCase().startsWith('fe80'));

/** Addresses of the provisioning interface, or of the interfaces that carry one of the MACs. */
export const interfaceAddresses = (env: IssuerEnv, interfaces: Interfaces): string[] => {
  const name = env['PROVISIONING_INTERFACE'];
  const macs = (env['PROVISIONING_MACS'] ?? '')
    .toLowerCase()
    .split(',')
    .filter((m) => m !== '');
  const all = interfaces();
  return Object.entries(all)
    .filter(([iface, infos]) => iface === name || (infos ?? []).some((i) => macs.includes(i.mac.toLowerCase())))
    .flatMap(([, infos]) => (infos ?? []).filter(usable).map((i) => i.address));
};

/**
 * Whether to wait for an address of the provisioning interface (or MACs). Not when PROVISIONING_IP is given:
 * ironic-image then uses that address and nothing of the interface, and it may be a virtual IP that only
 * a sidecar adds, after the init containers, so waiting would only delay every pod start by the timeout.
 */
const waitsForInterface = (env: IssuerEnv): boolean =>
  (env['PROVISIONING_IP'] ?? '') === '' && ((env['PROVISIONING_INTERFACE'] ?? '') !== '' || (env['PROVISIONING_MACS'] ?? '') !== '');

const listOf = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');

/** Every address to certify, waiting (up to RPC_WAIT_SECONDS) for the provisioning interface to get one when it is the source of the address. */
export const addressesToCertify = async (env: IssuerEnv, interfaces: Interfaces = networkInterfaces, pause = 2000): Promise<string[]> => {
  const fixed = [env['PROVISIONING_IP']?.split('/')[0], env['HOST_IP'], env['POD_IP'], ...listOf(env['CERT_IP_ADDRESSES'])].filter(
    (ip): ip is string => ip !== undefined && ip !== '',
  );
  const deadline = Date.now() + Number(env['RPC_WAIT_SECONDS'] ?? 300) * 1000;
  let found = interfaceAddresses(env, interfaces);
  while (waitsForInterface(env) && found.length === 0 && Date.now() < deadline) {
    await sleep(pause);
    found = interfaceAddresses(env, interfaces);
  }
  return [...new Set([...fixed, ...found])];
};

/** Issues and writes the certificate; returns the message to print. Throws with a clear message on bad input. */
export const issueFromEnvironment = async (env: IssuerEnv, now: Date, interfaces: Interfaces = networkInterfaces, pause = 2000): Promise<string> => {
  const caDir = env['CA_DIR'] ?? env['RPC_CA_DIR'];
  const outDir = env['CERT_DIR'] ?? env['RPC_CERT_DIR'];
  if (caDir === undefined || outDir === undefined) throw new Error('CA_DIR and CERT_DIR must be set');
  const days = env['CERT_VALIDITY_DAYS'] !== undefined ? Number(env['CERT_VALIDITY_DAYS']) : undefined;
  if (days !== undefined && !(Number.isInteger(days) && days > 0))
    throw new Error(`CERT_VALIDITY_DAYS must be a positive number of days, not ${env['CERT_VALIDITY_DAYS']}`);
  const ips = await addressesToCertify(env, interfaces, pause);
  const dnsNames = listOf(env['CERT_DNS_NAMES']);
  if (ips.length === 0 && dnsNames.length === 0) throw new Error('no address to certify: set HOST_IP, POD_IP or PROVISIONING_IP');
  const ca = { certPem: readFileSync(join(caDir, 'tls.crt'), 'utf8'), keyPem: readFileSync(join(caDir, 'tls.key'), 'utf8') };
  // The bundle to trust: every CA of a rotation in progress, else the signing CA.
  const bundle = existsSync(join(caDir, 'ca.crt')) ? readFileSync(join(caDir, 'ca.crt'), 'utf8') : ca.certPem;
  const leaf = issueCertificate({ ca, ips, dnsNames, now, ...(days !== undefined && { validityDays: days }) });
  writeFileSync(join(outDir, 'tls.key'), leaf.keyPem, { mode: 0o600 });
  writeFileSync(join(outDir, 'tls.crt'), leaf.certPem, { mode: 0o644 });
  writeFileSync(join(outDir, 'ca.crt'), bundle, { mode: 0o644 });
  return `issued a certificate for ${[...dnsNames, ...ips].join(', ')}`;
};

/* c8 ignore start */
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    console.log(await issueFromEnvironment(process.env, new Date()));
  } catch (error) {
    console.error(`certificate issuer: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
/* c8 ignore stop */
