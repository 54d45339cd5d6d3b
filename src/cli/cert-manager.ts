/**
 * A stand-in for cert-manager in the in-memory cluster: every Certificate whose Secret is missing or was
 * issued for other names gets a kubernetes.io/tls Secret (tls.crt for its DNS names and IP addresses,
 * tls.key, ca.crt), labelled from its secretTemplate and annotated as cert-manager does, and the
 * Certificate becomes Ready. Issuers are not modelled: one CA, made when the stand-in starts, signs
 * everything.
 */
import { canonicalIP } from '../api/shared/net.js';
import { generateRpcCA, issueCertificate, type KeyPairPem } from '../crypto/rpc-ca.js';
import { groupKeyOfType, CERTIFICATES } from '../api/shared/resource-types.js';
import type { Cluster } from './cluster.js';
import { isRecord, type Json, type KubeResource } from './objects.js';

/** The fields of a Certificate's spec the stand-in reads. */
type CertificateSpec = {
  readonly secretName: string;
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
};

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

const specOf = (certificate: KubeResource): CertificateSpec => {
  const spec: Json = isRecord(certificate['spec']) ? certificate['spec'] : {};
  const template = isRecord(spec['secretTemplate']) ? spec['secretTemplate'] : {};
  const labels = isRecord(template['labels']) ? template['labels'] : {};
  return {
    secretName: typeof spec['secretName'] === 'string' ? spec['secretName'] : '',
    dnsNames: strings(spec['dnsNames']),
    ipAddresses: strings(spec['ipAddresses']),
    labels: Object.fromEntries(Object.entries(labels).filter((entry): entry is [string, string] => typeof entry[1] === 'string')),
  };
};

const READY_MESSAGE = 'Certificate is up to date and has not expired';

export class CertManagerStandIn {
  readonly #ca: KeyPairPem;

  private constructor(ca: KeyPairPem) {
    this.#ca = ca;
  }

  /** A stand-in with a new CA, valid from `now`. */
  static async start(now: string): Promise<CertManagerStandIn> {
    return new CertManagerStandIn(await generateRpcCA('emulated cert-manager CA', new Date(now)));
  }

  /** Issues what is missing or stale and marks every Certificate Ready; returns how many Secrets were issued. */
  reconcile(cluster: Cluster, now: string): number {
    let issued = 0;
    for (const certificate of cluster.store.list(groupKeyOfType(CERTIFICATES))) {
      const spec = specOf(certificate);
      const namespace = certificate.metadata.namespace ?? '';
      const altNames = spec.dnsNames.join(',');
      // As cert-manager: Go's net.IP.String() of each SAN.
      const ipSans = spec.ipAddresses.map((ip) => canonicalIP(ip) ?? ip).join(',');
      const existing = cluster.store.get('Secret.v1', `${namespace}/${spec.secretName}`);
      const annotations = existing?.metadata.annotations ?? {};
      if (existing === undefined || annotations['cert-manager.io/alt-names'] !== altNames || annotations['cert-manager.io/ip-sans'] !== ipSans) {
        cluster.put(this.#secret(certificate, spec, { altNames, ipSans }, now));
        issued += 1;
      }
      const ready = {
        conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: READY_MESSAGE, observedGeneration: certificate.metadata.generation ?? 1 }],
      };
      if (JSON.stringify(certificate['status']) !== JSON.stringify(ready)) cluster.store.updateStatus(certificate, ready);
    }
    return issued;
  }

  #secret(certificate: KubeResource, spec: CertificateSpec, sans: { readonly altNames: string; readonly ipSans: string }, now: string): KubeResource {
    const leaf = issueCertificate({ ca: this.#ca, dnsNames: spec.dnsNames, ips: spec.ipAddresses, now: new Date(now), validityDays: 90 });
    const data = { 'tls.crt': leaf.certPem, 'tls.key': leaf.keyPem, 'ca.crt': this.#ca.certPem };
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: spec.secretName,
        namespace: certificate.metadata.namespace ?? '',
        labels: { ...spec.labels },
        annotations: {
          'cert-manager.io/certificate-name': certificate.metadata.name,
          'cert-manager.io/alt-names': sans.altNames,
          'cert-manager.io/ip-sans': sans.ipSans,
        },
      },
      type: 'kubernetes.io/tls',
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    };
  }
}
