#!/usr/bin/env node
/**
 * Init container of HA Ironic pods: issues this replica's JSON-RPC certificate, signed by the private
 * CA, and writes it where the ironic container reads it. The certificate covers every address the
 * conductor may register for RPC: PROVISIONING_IP, the addresses of PROVISIONING_INTERFACE or of the
 * interfaces with PROVISIONING_MACS (waited for, as ironic-image does), the node IP and the pod IP.
 *   RPC_CA_DIR    directory with the CA's tls.crt and tls.key
 *   RPC_CERT_DIR  directory to write tls.crt, tls.key and ca.crt into
 *   HOST_IP, POD_IP, PROVISIONING_IP, PROVISIONING_INTERFACE, PROVISIONING_MACS
 *   RPC_WAIT_SECONDS  how long to wait for an interface address (default 300)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { issueRpcCertificate } from '../crypto/rpc-ca.js';

export type IssuerEnv = Readonly<Record<string, string | undefined>>;
export type Interfaces = () => NodeJS.Dict<NetworkInterfaceInfo[]>;

const usable = (info: NetworkInterfaceInfo): boolean => !info.internal && !(info.family === 'IPv6' && info.address.toLowerCase().startsWith('fe80'));

/** Addresses of the provisioning interface, or of the interfaces that carry one of the MACs. */
export const interfaceAddresses = (env: IssuerEnv, interfaces: Interfaces): string[] => {
  const name = env['PROVISIONING_INTERFACE'];
  const macs = (env['PROVISIONING_MACS'] ?? '').toLowerCase().split(',').filter((m) => m !== '');
  const all = interfaces();
  return Object.entries(all)
    .filter(([iface, infos]) => iface === name || (infos ?? []).some((i) => macs.includes(i.mac.toLowerCase())))
    .flatMap(([, infos]) => (infos ?? []).filter(usable).map((i) => i.address));
};

const wantsInterface = (env: IssuerEnv): boolean => (env['PROVISIONING_INTERFACE'] ?? '') !== '' || (env['PROVISIONING_MACS'] ?? '') !== '';

/** Every address to certify, waiting (up to RPC_WAIT_SECONDS) for the provisioning interface to get one. */
export const addressesToCertify = async (env: IssuerEnv, interfaces: Interfaces = networkInterfaces, pause = 2000): Promise<string[]> => {
  const fixed = [env['PROVISIONING_IP']?.split('/')[0], env['HOST_IP'], env['POD_IP']].filter((ip): ip is string => ip !== undefined && ip !== '');
  const deadline = Date.now() + Number(env['RPC_WAIT_SECONDS'] ?? 300) * 1000;
  let found = interfaceAddresses(env, interfaces);
  while (wantsInterface(env) && found.length === 0 && Date.now() < deadline) {
    await sleep(pause);
    found = interfaceAddresses(env, interfaces);
  }
  return [...new Set([...fixed, ...found])];
};

/** Issues and writes the certificate; returns the message to print. Throws with a clear message on bad input. */
export const issueFromEnvironment = async (env: IssuerEnv, now: Date, interfaces: Interfaces = networkInterfaces, pause = 2000): Promise<string> => {
  const caDir = env['RPC_CA_DIR'];
  const outDir = env['RPC_CERT_DIR'];
  if (caDir === undefined || outDir === undefined) throw new Error('RPC_CA_DIR and RPC_CERT_DIR must be set');
  const ips = await addressesToCertify(env, interfaces, pause);
  if (ips.length === 0) throw new Error('no address to certify: set HOST_IP, POD_IP or PROVISIONING_IP');
  const ca = { certPem: readFileSync(join(caDir, 'tls.crt'), 'utf8'), keyPem: readFileSync(join(caDir, 'tls.key'), 'utf8') };
  const leaf = issueRpcCertificate({ ca, ips, now });
  writeFileSync(join(outDir, 'tls.key'), leaf.keyPem, { mode: 0o600 });
  writeFileSync(join(outDir, 'tls.crt'), leaf.certPem, { mode: 0o644 });
  writeFileSync(join(outDir, 'ca.crt'), ca.certPem, { mode: 0o644 });
  return `issued a JSON-RPC certificate for ${ips.join(', ')}`;
};

/* c8 ignore start */
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    console.log(await issueFromEnvironment(process.env, new Date()));
  } catch (error) {
    console.error(`rpc-certificate: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
/* c8 ignore stop */
