/**
 * Prometheus metrics (GET /metrics): hook calls, their duration and their errors, in a registry of
 * each server instance (so tests can build many servers), plus the default process metrics, which
 * describe the process and are collected once for it.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { MetricLabel } from '../kinds/index.js';

/** The labels of a hook call: the hook, and the parent kind's metric label (one per descriptor of src/kinds). */
export type HookLabels = { readonly hook: 'customize' | 'sync' | 'finalize'; readonly kind: MetricLabel };

export type HookMetrics = {
  /** Records one finished hook call. */
  readonly observe: (labels: HookLabels, statusCode: number, seconds: number) => void;
  /** The exposition text and its content type. */
  readonly scrape: () => Promise<{ readonly contentType: string; readonly body: string }>;
};

let processRegistry: Registry | undefined;

/** The default metrics start timers and observers that are never released, so only once per process. */
const processMetrics = (): Registry => {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
};

const LABELS = ['hook', 'kind'] as const;

/** A sync takes a few milliseconds; bcrypt about 50 ms; Metacontroller gives up at 10 s. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const hookMetrics = (): HookMetrics => {
  const registry = new Registry();
  const processWide = processMetrics();
  const calls = new Counter({ name: 'ironic_hook_calls_total', help: 'Hook calls, whatever their outcome.', labelNames: LABELS, registers: [registry] });
  const duration = new Histogram({
    name: 'ironic_hook_call_duration_seconds',
    help: 'Time from receiving a hook call to sending its response.',
    labelNames: LABELS,
    buckets: BUCKETS,
    registers: [registry],
  });
  const errors = new Counter({
    name: 'ironic_hook_errors_total',
    help: 'Hook calls not answered with 200, by status class (4xx: a bad or unauthorized request, 5xx: a bug).',
    labelNames: [...LABELS, 'code'],
    registers: [registry],
  });
  return {
    observe: (labels, statusCode, seconds) => {
      calls.inc(labels);
      duration.observe(labels, seconds);
      if (statusCode !== 200) errors.inc({ ...labels, code: `${Math.floor(statusCode / 100)}xx` });
    },
    scrape: async () => {
      const [hooks, processText] = await Promise.all([registry.metrics(), processWide.metrics()]);
      return { contentType: registry.contentType, body: `${hooks}\n${processText}` };
    },
  };
};
