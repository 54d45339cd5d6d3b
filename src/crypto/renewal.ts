/**
 * When generated API certificates are renewed. Each pod issues its own certificate at start (from the CA the
 * hook keeps), valid LEAF_VALIDITY_DAYS; the hook rolls the pods once every LEAF_RENEW_AFTER_DAYS (two
 * thirds of the lifetime), counted from the signing CA's start, so no certificate in use ever gets older
 * than that plus one rollout. Pure: the time is the sync's `now`.
 */
import { requiredCertificateFacts } from './certificates.js';

const DAY_MS = 24 * 60 * 60 * 1000;
export const LEAF_VALIDITY_DAYS = 90;
export const LEAF_RENEW_AFTER_DAYS = 60;
/**
 * How long a staged next CA is published (in the `<name>-ca` ConfigMap and the clouds hand-off) before it
 * signs, so that every client has had the chance to pick up the new bundle.
 */
export const CA_PUBLISHED_BEFORE_SIGNING_DAYS = 30;

/** The start of the renewal period `now` falls in, and the start of the next one. */
export type RenewalPeriod = { readonly start: Date; readonly next: Date };

/** The renewal period of `now` for leaves signed by the CA `caCertPem` (periods start at the CA's start). */
export const renewalPeriod = (caCertPem: string, now: Date): RenewalPeriod => {
  const from = requiredCertificateFacts(caCertPem).validFrom;
  const length = LEAF_RENEW_AFTER_DAYS * DAY_MS;
  const index = Math.max(0, Math.floor((now.getTime() - from) / length));
  return { start: new Date(from + index * length), next: new Date(from + (index + 1) * length) };
};

/** Whether a staged CA has been published long enough to sign. */
export const publishedLongEnough = (nextCertPem: string, now: Date): boolean =>
  now.getTime() >= requiredCertificateFacts(nextCertPem).validFrom + CA_PUBLISHED_BEFORE_SIGNING_DAYS * DAY_MS;

/** When a staged CA may sign. */
export const signableAt = (nextCertPem: string): Date => new Date(requiredCertificateFacts(nextCertPem).validFrom + CA_PUBLISHED_BEFORE_SIGNING_DAYS * DAY_MS);
