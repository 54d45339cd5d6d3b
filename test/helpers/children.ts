/**
 * Typed access to the children of a hook response (or any list of objects, e.g. the manifests of deploy/):
 * an object of a kind the upstream schemas describe comes back as its kubernetes-models type, recognised by that model's own
 * apiVersion/kind guard; any other kind (Certificate, MariaDB, ...) as a plain object.
 */
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import type { TypeMetaGuard } from '@kubernetes-models/base';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { isObj, nameOf, valueAt, type Obj } from '../support/paths.js';

const MODELS = {
  ConfigMap,
  CustomResourceDefinition,
  DaemonSet,
  Deployment,
  Ingress,
  Job,
  Namespace,
  NetworkPolicy,
  PersistentVolumeClaim,
  PodDisruptionBudget,
  PrometheusRule,
  Secret,
  Service,
  ServiceAccount,
  ServiceMonitor,
  StatefulSet,
};
type Models = typeof MODELS;

/** A child of kind `K`: its kubernetes-models type, or a plain object for a kind without one. */
export type ChildOf<K extends string> = K extends keyof Models ? (Models[K] extends { is: TypeMetaGuard<infer T> } ? T : never) : Obj;

/** Children: a list of objects, or a hook response that has one. */
export type Children = readonly unknown[] | { readonly children: readonly unknown[] };

const hasModel = (kind: string): kind is keyof Models => Object.hasOwn(MODELS, kind);

const listOf = (from: Children): readonly unknown[] => ('children' in from ? from.children : from);

/** True for an object of `kind` (and `name`, when given). */
export const isChild =
  <K extends string>(kind: K, name?: string) =>
  (value: unknown): value is ChildOf<K> =>
    (hasModel(kind) ? MODELS[kind].is(value) : isObj(value) && value['kind'] === kind) && (name === undefined || nameOf(value) === name);

/** Every child of `kind` (and `name`, when given), in order. */
export const childrenOf = <K extends string>(from: Children, kind: K, name?: string): ChildOf<K>[] => listOf(from).filter(isChild(kind, name));

/** The first child of `kind` (and `name`, when given), or undefined. */
export const childOf = <K extends string>(from: Children, kind: K, name?: string): ChildOf<K> | undefined => listOf(from).find(isChild(kind, name));

/** The first child of `kind` (and `name`, when given); throws when there is none. */
export const requireChild = <K extends string>(from: Children, kind: K, name?: string): ChildOf<K> => {
  const found = childOf(from, kind, name);
  if (found === undefined) throw new Error(`no ${kind}${name === undefined ? '' : ` ${name}`} among the children`);
  return found;
};

/** `value` as an object of `kind`; throws when it is not one. */
export const ofKind = <K extends string>(value: unknown, kind: K): ChildOf<K> => {
  if (!isChild(kind)(value)) throw new Error(`not a ${kind}: ${JSON.stringify(valueAt(value, 'kind'))}`);
  return value;
};

/** The first object of a group (`Kind.group/version`) of an observed map; throws when the group is empty. */
export const firstObserved = (map: Readonly<Record<string, Readonly<Record<string, Obj>> | null>>, group: string): Obj => {
  const [first] = Object.values(map[group] ?? {});
  if (first === undefined) throw new Error(`no ${group} observed`);
  return first;
};
