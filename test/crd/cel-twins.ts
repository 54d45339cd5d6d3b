/**
 * The twin of every CEL rule of the generated CRDs: which problem of the kind's TypeScript validation
 * (validateIronic, validateIronicDatabase, validateIronicImageCache) says the same thing, and which generated objects exercise it. Keyed by `<location>: <message>`, where the
 * location is the schema path of the rule's `x-kubernetes-validations` (`[]` for list items, `(root)` for the
 * object itself). A CEL rule without an entry here fails the parity test.
 */
import type fc from 'fast-check';
import type { Problem } from '../../src/api/shared/problems.js';
import { validateIronicDatabase } from '../../src/api/ironic-database/validate.js';
import { validateIronicImageCache } from '../../src/api/ironic-image-cache/validate.js';
import { validateIronic } from '../../src/api/ironic/validate.js';
import {
  agentImageSamples,
  conductorSamples,
  databaseTlsProfileSamples,
  upstreamVrrpSamples,
  cacheArchitectureSamples,
  cacheResourcesSamples,
  cacheProxySamples,
  cacheStorageSamples,
  imageCacheNameSamples,
  ironicImageCacheSamples,
  databaseSamples,
  dhcpSamples,
  engineSamples,
  exporterSamples,
  galeraStorageSamples,
  ipxeSamples,
  ironicDatabaseSamples,
  backupSamples,
  restoreSamples,
  keepalivedSamples,
  networkingSamples,
  providerNetworkSamples,
  proxySamples,
  resourcesSamples,
  storageSamples,
  tlsSamples,
  vrrpSamples,
  zoneSamples,
  type Json,
  type Sample,
} from './cel-samples.js';
import { valueAt } from '../support/paths.js';

/** Whether the problems say what the rule says, for the instance of the rule at field path `at`. */
export type Twin = (problems: readonly Problem[], at: string) => boolean;

/** A rule with a TypeScript twin: CEL refuses exactly when the twin reports. */
export type TwinEntry = {
  readonly samples: fc.Arbitrary<Sample>;
  readonly twin: Twin;
  /**
   * A rule (key of the same CRD) whose refusal hides this one in TypeScript, which then reports only the
   * masking problem. The object is refused either way (the masking rule's own entry checks that both sides
   * refuse it); the verdicts of this rule are compared only when the masking rule accepts.
   */
  readonly maskedBy?: { readonly key: string; readonly reason: string };
};

/**
 * A rule without a TypeScript twin, with the reason. `refuses` states its intent over the sample, so the
 * rule is still checked against something.
 */
export type NoTwinEntry = {
  readonly samples: fc.Arbitrary<Sample>;
  readonly noTwin: string;
  readonly refuses: (sample: Sample) => boolean;
};

export type Entry = TwinEntry | NoTwinEntry;

/**
 * A problem at one of `paths` (relative to the instance: `.field`, or a pattern of the rest of the path)
 * whose message matches `message`.
 */
const problemAt =
  (paths: string | RegExp | readonly string[], message: RegExp): Twin =>
  (problems, at) =>
    problems.some((p) => {
      if (!p.path.startsWith(at) || !message.test(p.message)) return false;
      const rest = p.path.slice(at.length);
      if (paths instanceof RegExp) return paths.test(rest);
      return typeof paths === 'string' ? rest === paths : paths.includes(rest);
    });

const HA_DHCP = 'spec: networking.dhcp with highAvailability needs keepalived, whose virtual IP elects the node that serves DHCP';
const HA_MASKS_DHCP = {
  key: HA_DHCP,
  reason:
    'with high availability and no keepalived, validateIronic refuses networking.dhcp as a whole without looking inside it; the CEL rules of the DHCP block cannot see highAvailability',
};

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const storageOf = (object: { readonly spec: Json } | undefined): Json => (isRecord(object?.spec['storage']) ? object.spec['storage'] : {});
const ephemeral = (object: { readonly spec: Json } | undefined): boolean => storageOf(object)['ephemeral'] === true;
const storageClass = (object: { readonly spec: Json } | undefined): unknown => storageOf(object)['storageClassName'] ?? '';
const storageSize = (object: { readonly spec: Json } | undefined): unknown => storageOf(object)['size'] ?? '5Gi';

const NO_PREVIOUS_SPEC =
  "validateIronicDatabase reads the ephemeral storage of no previous spec (the sync hook never receives one and passes what its observed children were made with: the engine, and a MariaDB's storage, which is never ephemeral); the database renderer keeps the claim template of an existing StatefulSet, so the data is never dropped";

const BUILTIN_CLASS_NO_PREVIOUS =
  'validateIronicDatabase compares the storage class with the previous spec only when both are engine MariaDBOperator (the sync hook passes the class of the observed MariaDB, whose webhook refuses a change); with engine Builtin the renderer keeps the claim template of the existing StatefulSet instead';

const CACHE_NO_PREVIOUS_SPEC =
  'validateIronicImageCache has no previous spec (the sync hook never receives one); the cache renderer keeps the claim template of an existing StatefulSet, whose templates are immutable';

/**
 * The TypeScript validation of each kind (by `kind`), whose problems the twins read: a kind whose CRD has
 * CEL rules needs one here.
 */
export const VALIDATORS: Readonly<Record<string, (spec: unknown, old: unknown) => readonly Problem[]>> = {
  Ironic: validateIronic,
  IronicDatabase: validateIronicDatabase,
  IronicImageCache: (spec) => validateIronicImageCache(spec),
};

/** The twin of every CEL rule, per kind (by `kind`). */
export const TWINS: Readonly<Record<string, Readonly<Record<string, Entry>>>> = {
  Ironic: {
    'spec: database and databaseName cannot both be set: use one database': {
      samples: databaseSamples,
      twin: problemAt('.databaseName', /^database and databaseName cannot both be set/),
    },
    'spec: highAvailability requires a database: set database or databaseName': {
      samples: databaseSamples,
      twin: problemAt('.highAvailability', /^high availability requires a database/),
    },
    'spec: database cannot be changed to a different database once set': {
      samples: databaseSamples,
      twin: problemAt('.database', /^cannot change to a different database/),
    },
    'spec: databaseName cannot be changed to a different IronicDatabase once set': {
      samples: databaseSamples,
      twin: problemAt('.databaseName', /^cannot change to a different IronicDatabase/),
    },
    'spec: imageCacheName cannot be used with images.deployRamdiskBranch, images.deployRamdiskDownloader or overrides.agentImages: the image cache provides IPA':
      {
        samples: imageCacheNameSamples,
        twin: problemAt('.imageCacheName', /^imageCacheName cannot be used with (images|overrides)\./),
      },
    "spec: imageCacheName cannot be used with tls.ipxe: iPXE over TLS loads IPA only from the Ironic's own httpd, which has no IPA when an image cache provides it":
      {
        samples: imageCacheNameSamples,
        twin: problemAt('.imageCacheName', /^imageCacheName cannot be used with tls\.ipxe/),
      },
    'spec: networking.ipAddress needs keepalived with highAvailability: it can only be the virtual IP that keepalived moves between the nodes': {
      samples: networkingSamples,
      twin: problemAt('.networking.ipAddress', /^networking\.ipAddress needs keepalived with high availability/),
    },
    [HA_DHCP]: {
      samples: networkingSamples,
      twin: problemAt('.networking.dhcp', /^DHCP with high availability needs keepalived/),
    },
    'spec: networking.ipAddress with highAvailability must be an IPv4 address': {
      samples: networkingSamples,
      twin: problemAt('.networking.ipAddress', /^networking\.ipAddress with high availability must be an IPv4 address/),
    },
    'spec: bindInterface cannot be used with highAvailability and a virtual IP (networking.ipAddress)': {
      samples: networkingSamples,
      twin: problemAt('.networking.bindInterface', /^bindInterface cannot be used with high availability and a virtual IP/),
    },
    'spec: tls.insecureRPC only makes sense with highAvailability': {
      samples: tlsSamples,
      twin: problemAt('.tls.insecureRPC', /^insecureRPC only makes sense with highAvailability/),
    },
    'spec: networking.ipAddress and externalIP cannot have an IPv6 zone (%...) with tls.generateCertificate or tls.issuerRef: a certificate cannot hold it': {
      samples: zoneSamples,
      twin: problemAt(['.networking.ipAddress', '.networking.externalIP'], /^networking\.(ipAddress|externalIP) cannot have an IPv6 zone/),
    },
    'spec: tls.ipxe needs networking.dhcp and an IPv4 networking.ipAddress': {
      samples: ipxeSamples,
      twin: problemAt('.tls.ipxe', /^tls\.ipxe needs/),
    },
    'spec: tls.ipxe runs on amd64 nodes only: nodeSelector kubernetes.io/arch must be amd64 or absent': {
      samples: ipxeSamples,
      twin: problemAt('.nodeSelector["kubernetes.io/arch"]', /^tls\.ipxe runs on amd64 nodes only/),
    },
    'spec.networking: disableHostNetwork cannot be used with bindInterface, dhcp, interface, ipAddress, macAddresses or keepalived': {
      samples: networkingSamples,
      twin: problemAt('.disableHostNetwork', /^disableHostNetwork cannot be used together with/),
    },
    'spec.networking: externalIP cannot be set together with ingress, externalCallbackURL or imageServerExternalURL': {
      samples: networkingSamples,
      twin: problemAt('.externalIP', /^externalIP cannot be set together with/),
    },
    'spec.networking: without ingress, externalCallbackURL and imageServerExternalURL must be set together': {
      samples: networkingSamples,
      twin: problemAt(
        ['.externalCallbackURL', '.imageServerExternalURL'],
        /^without networking\.ingress, externalCallbackURL and imageServerExternalURL must be set together/,
      ),
    },
    'spec.networking: DHCP needs at least one of ipAddress, interface or macAddresses': {
      samples: dhcpSamples,
      twin: problemAt('', /^DHCP needs the provisioning network/),
      maskedBy: HA_MASKS_DHCP,
    },
    'spec.networking: keepalived requires both ipAddress and interface': {
      samples: keepalivedSamples,
      twin: problemAt(['.ipAddress', '.interface'], /^keepalived requires both networking\.ipAddress and networking\.interface/),
    },
    'spec.networking: keepalived and the deprecated ipAddressManager cannot be used together: keep keepalived only': {
      samples: keepalivedSamples,
      twin: problemAt('.ipAddressManager', /^keepalived and the deprecated ipAddressManager cannot be used together/),
    },
    'spec.networking.dhcp: dnsAddress cannot be set together with serveDNS: remove one of them': {
      samples: dhcpSamples,
      twin: problemAt('.dnsAddress', /^dnsAddress cannot be set together with serveDNS/),
      maskedBy: HA_MASKS_DHCP,
    },
    'spec.networking.dhcp: networkCIDR, rangeBegin and rangeEnd must be set together': {
      samples: dhcpSamples,
      twin: problemAt(['.networkCIDR', '.rangeBegin', '.rangeEnd'], /^networkCIDR, rangeBegin and rangeEnd must be set together/),
      maskedBy: HA_MASKS_DHCP,
    },
    'spec.networking.dhcp: set networkCIDR, rangeBegin and rangeEnd, or at least one entry of extraRanges': {
      samples: dhcpSamples,
      twin: problemAt('.networkCIDR', /^a DHCP range is required/),
      maskedBy: HA_MASKS_DHCP,
    },
    'spec.networkingService: allowedVLANs cannot be set in access mode': {
      samples: providerNetworkSamples,
      twin: problemAt(/^\.providerNetworks\[[0-9]+\]\.allowedVLANs$/, /: allowedVLANs cannot be set in access mode/),
    },
    'spec.networkingService: allowedVLANs are required in trunk and hybrid modes': {
      samples: providerNetworkSamples,
      twin: problemAt(/^\.providerNetworks\[[0-9]+\]\.allowedVLANs$/, /: allowedVLANs required for (trunk|hybrid) mode/),
    },
    'spec.overrides.agentImages: each architecture (including the default, empty one) may appear only once': {
      samples: agentImageSamples,
      twin: problemAt(/^\[[0-9]+\]\.architecture$/, /^duplicate (architecture|default)/),
    },
    'spec.overrides.agentImages[]: the kernel and initramfs URLs must not have spaces around them: remove them': {
      samples: agentImageSamples,
      twin: problemAt(['.kernel', '.initramfs'], /^the (kernel|initramfs) URL has spaces around it/),
    },
    'spec.overrides.agentImages[]: http and https URLs must include a host: write them as http(s)://host/path': {
      samples: agentImageSamples,
      twin: problemAt(['.kernel', '.initramfs'], /^https? URL must include a host/),
    },
    "spec.conductor: heartbeatTimeout must be at least 3 times heartbeatInterval: one late heartbeat (a slow node, a busy database) must not make the other conductors take this conductor's nodes over":
      {
        samples: conductorSamples,
        twin: problemAt('.heartbeatTimeout', /^heartbeatTimeout \(\d+\) must be at least 3 times heartbeatInterval/),
      },
    'spec.prometheusExporter.sensorCollectionInterval: sensorCollectionInterval must be at least 120: the power state is already polled every 60 s and ironic-image advises against collecting sensor data more often than every 120 s, so as not to overload the BMCs':
      {
        samples: exporterSamples,
        noTwin:
          'admission only: the hook raises a lower interval to 120 instead of refusing it (parse-ironic.ts), since Ironics stored under the former CRD default of 60 keep it through validation ratcheting',
        refuses: ({ object }) => {
          const interval = valueAt(object.spec, 'prometheusExporter', 'sensorCollectionInterval');
          // Compared as JavaScript compares any value with a number.
          return interval !== undefined && Number(interval) < 120;
        },
      },
    'spec.resources: resources are set by container name: use ironic, httpd, ramdisk-logs, dnsmasq, keepalived, ironic-prometheus-exporter, ramdisk-downloader, rpc-certificate, tls-certificate, ipxe-builder, database-upgrade, online-data-migrations, ironic-networking':
      {
        samples: resourcesSamples,
        twin: problemAt(/^(\.[A-Za-z_][A-Za-z0-9_]*|\[".*"\])$/, /is not a container of Ironic/),
      },
    'spec.proxy: httpProxy and httpsProxy must be http or https URLs with a host, such as http://proxy.example.com:3128': {
      samples: proxySamples,
      twin: problemAt(['.httpProxy', '.httpsProxy'], /is not a proxy URL/),
    },
    'spec.proxy: httpProxy and httpsProxy must not contain a user name or password: they would be written in plain text into the pod specs, which anyone who can read pods sees; allow the Ironic nodes at the proxy by address, or point spec.proxy at a forwarding proxy that adds the credentials':
      {
        samples: proxySamples,
        twin: problemAt(['.httpProxy', '.httpsProxy'], /^https?Proxy has a user name or password, which is not supported/),
      },
    'spec.tls: issuerRef cannot be used with generateCertificate: use one source of certificates': {
      samples: tlsSamples,
      twin: problemAt('.issuerRef', /^issuerRef cannot be used with generateCertificate/),
    },
    'spec.networking: keepalivedVRID and keepalived.vrid are one setting under two names and differ: keep one': {
      samples: upstreamVrrpSamples,
      twin: problemAt('.keepalivedVRID', /^keepalivedVRID \(\d+\) and keepalived\.vrid \(\d+\) are one setting under two names and differ/),
    },
    'spec.networking: keepalivedPasswordRef and keepalived.passwordRef are one setting under two names and name different Secrets: keep one': {
      samples: upstreamVrrpSamples,
      twin: problemAt('.keepalivedPasswordRef', /^keepalivedPasswordRef \(Secret \S+\) and keepalived\.passwordRef \(Secret \S+\) are one setting/),
    },
    'spec.networking: keepalivedVRID and keepalivedPasswordRef configure keepalived, which does not run: set keepalived.enabled to true, or remove them': {
      samples: upstreamVrrpSamples,
      twin: problemAt('', /^keepalivedVRID and keepalivedPasswordRef configure keepalived, which does not run/),
    },
    'spec.networking.keepalived: vrid and passwordRef require enabled to be true': {
      samples: vrrpSamples,
      twin: problemAt('.enabled', /^vrid and passwordRef configure keepalived, which is disabled/),
    },
    'spec.tls: ipxe needs a certificate: set generateCertificate, certificateName or issuerRef': {
      samples: tlsSamples,
      twin: problemAt('.ipxe', /^ipxe needs a certificate/),
    },
    'spec.tls.profile: minTLSVersion, ciphers and curves are only for type Custom': {
      samples: tlsSamples,
      twin: problemAt(['.minTLSVersion', '.ciphers', '.curves'], /^(minTLSVersion|ciphers|curves) is only for type Custom/),
    },
    'spec.tls.profile: a Custom profile below TLS 1.3 needs ciphers': {
      samples: tlsSamples,
      twin: problemAt('.ciphers', /^a Custom profile below TLS 1\.3 needs ciphers/),
    },
    'spec.tls: bmcCA and bmcCAName are both set but do not match: use bmcCA only': {
      samples: tlsSamples,
      twin: problemAt('.bmcCAName', /^tls\.bmcCA and tls\.bmcCAName are both set but inconsistent/),
    },
    'spec.tls: trustedCA and trustedCAName are both set but do not match: use trustedCA only': {
      samples: tlsSamples,
      twin: problemAt('.trustedCAName', /^tls\.trustedCA and tls\.trustedCAName are both set but inconsistent/),
    },
  },
  IronicDatabase: {
    '(root): the name of an IronicDatabase is at most 43 characters (its StatefulSet name must fit pod labels)': {
      samples: ironicDatabaseSamples,
      noTwin: 'a rule on metadata.name, which validateIronicDatabase (a validator of the spec) does not see',
      refuses: ({ object }) => object.metadata.name.length > 43,
    },
    'spec.tlsProfile: minTLSVersion, ciphers and curves are only for type Custom': {
      samples: databaseTlsProfileSamples,
      twin: problemAt(['.minTLSVersion', '.ciphers', '.curves'], /^(minTLSVersion|ciphers|curves) is only for type Custom/),
    },
    'spec.tlsProfile: a Custom profile below TLS 1.3 needs ciphers': {
      samples: databaseTlsProfileSamples,
      twin: problemAt('.ciphers', /^a Custom profile below TLS 1\.3 needs ciphers/),
    },
    'spec.storage: storageClassName cannot be used with ephemeral storage': {
      samples: storageSamples,
      twin: problemAt('.storageClassName', /^storageClassName cannot be used with ephemeral storage/),
    },
    'spec: storage.ephemeral cannot be changed once the database exists: create a new IronicDatabase instead': {
      samples: ironicDatabaseSamples,
      noTwin: NO_PREVIOUS_SPEC,
      refuses: ({ object, old }) => old !== undefined && ephemeral(object) !== ephemeral(old),
    },
    'spec: storage.storageClassName cannot be changed once the database exists': {
      samples: galeraStorageSamples,
      noTwin: BUILTIN_CLASS_NO_PREVIOUS,
      refuses: ({ object, old }) => old !== undefined && storageClass(object) !== storageClass(old),
    },
    'spec: storage.size cannot decrease with engine MariaDBOperator: mariadb-operator never shrinks the volumes of a Galera cluster; set it back to at least their size':
      {
        samples: galeraStorageSamples,
        // The hook passes the size of the observed MariaDB's volumes as the previous spec's.
        twin: problemAt('.storage.size', /^storage\.size cannot decrease with engine MariaDBOperator/),
      },
    'spec: engine cannot be changed once the database exists: the data stays with the engine that wrote it; create a new IronicDatabase with the other engine instead':
      {
        samples: engineSamples,
        // The hook passes the engine its observed children were made by as the previous spec.
        twin: problemAt('.engine', /^engine cannot be changed once the database exists/),
      },
    'spec.backup: backup has one destination: persistentVolumeClaim or s3, not both': {
      samples: backupSamples,
      twin: problemAt('', /^backup has one destination: persistentVolumeClaim or s3, not both/),
    },
    'spec.restoreFrom: restoreFrom has one source: claimName or s3, not both': {
      samples: restoreSamples,
      twin: problemAt('', /^restoreFrom has one source: claimName or s3, not both/),
    },
    'spec: replicas is only for engine MariaDBOperator: the Builtin engine runs one MariaDB pod': {
      samples: engineSamples,
      twin: problemAt('.replicas', /^replicas is only for engine MariaDBOperator/),
    },
    'spec: storage.ephemeral cannot be used with engine MariaDBOperator: mariadb-operator keeps the data of a Galera cluster on volumes only': {
      samples: engineSamples,
      twin: problemAt('.storage.ephemeral', /^storage\.ephemeral cannot be used with engine MariaDBOperator/),
    },
    'spec: replicas must be odd (3, 5, 7 or 9): Galera keeps working while a majority of its nodes is up, and an even number adds a node without surviving one more failure':
      {
        samples: engineSamples,
        twin: problemAt('.replicas', /^replicas must be odd/),
      },
  },
  IronicImageCache: {
    '(root): the name of an IronicImageCache is at most 42 characters (its StatefulSet name must fit pod labels)': {
      samples: ironicImageCacheSamples,
      noTwin: 'a rule on metadata.name, which validateIronicImageCache (a validator of the spec) does not see',
      refuses: ({ object }) => object.metadata.name.length > 42,
    },
    'spec.storage: storageClassName cannot be used with ephemeral storage': {
      samples: cacheStorageSamples,
      twin: problemAt('.storageClassName', /^storageClassName cannot be used with ephemeral storage/),
    },
    'spec.proxy: httpProxy and httpsProxy must be http or https URLs with a host, such as http://proxy.example.com:3128': {
      samples: cacheProxySamples,
      twin: problemAt(['.httpProxy', '.httpsProxy'], /is not a proxy URL/),
    },
    "spec.architectures[]: filename is required for every architecture but x86_64: the downloader's default tarball name does not depend on the architecture, so it would download the x86_64 IPA":
      {
        samples: cacheArchitectureSamples,
        twin: problemAt('.filename', /^filename is required for architecture/),
      },
    'spec.proxy: httpProxy and httpsProxy must not contain a user name or password: they would be written in plain text into the pod specs, which anyone who can read pods sees; allow the Ironic nodes at the proxy by address, or point spec.proxy at a forwarding proxy that adds the credentials':
      {
        samples: cacheProxySamples,
        twin: problemAt(['.httpProxy', '.httpsProxy'], /^https?Proxy has a user name or password, which is not supported/),
      },
    'spec.architectures: each architecture may appear only once': {
      samples: cacheArchitectureSamples,
      twin: problemAt('', /^each architecture may appear only once/),
    },
    'spec.resources: resources are set by container name: use download-x86-64, download-aarch64, prune, httpd': {
      samples: cacheResourcesSamples,
      twin: problemAt(/^(\.[A-Za-z_][A-Za-z0-9_]*|\[".*"\])$/, /is not a container of an IronicImageCache/),
    },
    'spec: storage.ephemeral cannot be changed once the cache exists: create a new IronicImageCache instead': {
      samples: ironicImageCacheSamples,
      noTwin: CACHE_NO_PREVIOUS_SPEC,
      refuses: ({ object, old }) => old !== undefined && ephemeral(object) !== ephemeral(old),
    },
    'spec: storage.storageClassName cannot be changed once the cache exists': {
      samples: ironicImageCacheSamples,
      noTwin: CACHE_NO_PREVIOUS_SPEC,
      refuses: ({ object, old }) => old !== undefined && storageClass(object) !== storageClass(old),
    },
    'spec: storage.size cannot be changed once the cache exists (the claim template of its StatefulSet is immutable): restore the previous size, or create a new IronicImageCache':
      {
        samples: ironicImageCacheSamples,
        noTwin: CACHE_NO_PREVIOUS_SPEC,
        refuses: ({ object, old }) => old !== undefined && !ephemeral(object) && storageSize(object) !== storageSize(old),
      },
  },
};
