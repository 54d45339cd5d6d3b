/**
 * Rotation of the JSON-RPC CA without an RPC outage. A CA set is the signing CA, the CAs every replica
 * trusts (the bundle), and, during a rotation, the next CA. A renewal takes two rolling restarts:
 *   1. stage: a next CA is generated and added to the bundle; leaves are still signed by the current
 *      CA, and after the roll every replica trusts both;
 *   2. promote (once that roll is complete): the next CA signs; replicas still on old leaves and those
 *      on new ones verify each other because both CAs are trusted.
 * The old CA leaves the bundle when it expires. Pure, apart from generating a CA when asked.
 */
import { certificateFacts } from './certificates.js';
import { caIsUsable, caMatches, type KeyPairPem } from './rpc-ca.js';

export type CASet = {
  readonly signing: KeyPairPem;
  /** PEM certificates every replica trusts, the signing one first. */
  readonly bundle: readonly string[];
  readonly next?: KeyPairPem;
};

const validAt = (certPem: string, now: Date): boolean => {
  const cert = certificateFacts(certPem);
  return cert !== undefined && cert.validFrom <= now.getTime() && now.getTime() < cert.validTo;
};

/** Whether a CA is still valid at all (even inside its renewal window). */
const stillValid = (ca: KeyPairPem, now: Date): boolean => caMatches(ca) && validAt(ca.certPem, now);

/** PEM certificates, trimmed, each ending with one newline, without duplicates: a stable bundle text. */
export const normalizeBundle = (pems: readonly string[]): string[] => [...new Set(pems.map((p) => p.trim()))].map((p) => `${p}\n`);

/** The bundle without expired CAs, the signing CA first. */
const prune = (set: CASet, now: Date): CASet => ({
  ...set,
  bundle: normalizeBundle([set.signing.certPem, ...set.bundle.filter((pem) => validAt(pem, now))]),
});

/**
 * The CA set to use now, given the observed one. `settled` says whether every replica already runs with
 * the observed set (the workload rolled out completely), which a promotion waits for.
 */
export const nextCASet = async (params: {
  readonly observed: CASet | undefined;
  readonly now: Date;
  readonly settled: boolean;
  readonly generate: () => Promise<KeyPairPem>;
}): Promise<CASet> => {
  const { observed, now } = params;
  // Expired before the rotation could finish: promote the staged CA if there is one (everyone trusts it).
  if (observed !== undefined && !stillValid(observed.signing, now) && observed.next !== undefined && stillValid(observed.next, now)) {
    return prune({ signing: observed.next, bundle: [observed.next.certPem, ...observed.bundle] }, now);
  }
  if (observed === undefined || !stillValid(observed.signing, now)) {
    const fresh = await params.generate();
    return { signing: fresh, bundle: normalizeBundle([fresh.certPem]) };
  }
  if (caIsUsable(observed.signing, now)) return prune(observed, now);
  // Inside the renewal window.
  if (observed.next === undefined || !caIsUsable(observed.next, now)) {
    const next = await params.generate();
    return {
      signing: observed.signing,
      next,
      bundle: normalizeBundle([observed.signing.certPem, next.certPem, ...observed.bundle.filter((p) => validAt(p, now))]),
    };
  }
  if (!params.settled) return observed;
  return prune({ signing: observed.next, bundle: [observed.next.certPem, ...observed.bundle] }, now);
};
