import t from 'tap';
import { ironic } from '../helpers/hooks.js';
import { server } from './support.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };

/** The value of one sample line, e.g. `ironic_hook_calls_total{hook="sync",kind="Ironic"}`; 0 when absent. */
const sample = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};

t.test('/healthz and /readyz', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  t.same((await app.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
  const ready = await app.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 200);
  t.same(ready.json(), { status: 'ready' });
});

t.test('/metrics: hook calls, durations and errors by hook and kind, and the process metrics', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  const scrape = async (): Promise<string> => {
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    t.equal(response.statusCode, 200);
    t.match(response.headers['content-type'], /^text\/plain; version=0.0.4/);
    return response.body;
  };
  const before = await scrape();
  for (const name of ['ironic_hook_calls_total', 'ironic_hook_call_duration_seconds', 'ironic_hook_errors_total']) {
    t.match(before, new RegExp(`^# TYPE ${name} (counter|histogram)$`, 'm'), name);
  }
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
    t.match(before, new RegExp(`^# TYPE ${name} `, 'm'), `process metric ${name}`);
  }
  const sync = 'ironic_hook_calls_total{hook="sync",kind="Ironic"}';
  t.equal(sample(before, sync), 0);

  const parent = ironic({ networking: provisioning });
  await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children: {}, related: {} } });
  await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children: {}, related: {} } });
  await app.inject({ method: 'POST', url: '/ironic/customize', payload: { parent } });
  await app.inject({ method: 'POST', url: '/ironicdatabase/finalize', payload: { parent } });
  await app.inject({ method: 'POST', url: '/ironicdatabase/finalize', headers: { 'content-type': 'text/plain' }, payload: 'x' });
  const after = await scrape();
  t.equal(sample(after, sync), 2, 'two syncs');
  t.equal(sample(after, 'ironic_hook_calls_total{hook="customize",kind="Ironic"}'), 1);
  t.equal(sample(after, 'ironic_hook_calls_total{hook="finalize",kind="IronicDatabase"}'), 2);
  t.equal(sample(after, 'ironic_hook_call_duration_seconds_count{hook="sync",kind="Ironic"}'), 2);
  t.ok(sample(after, 'ironic_hook_call_duration_seconds_sum{hook="sync",kind="Ironic"}') > 0);
  t.equal(sample(after, 'ironic_hook_call_duration_seconds_bucket{le="10",hook="sync",kind="Ironic"}'), 2);
  t.equal(sample(after, 'ironic_hook_errors_total{hook="finalize",kind="IronicDatabase",code="4xx"}'), 2, 'a wrong parent and a wrong content type');
  t.equal(sample(after, 'ironic_hook_errors_total{hook="sync",kind="Ironic",code="4xx"}'), 0, 'successful calls are no errors');
  t.notMatch(after, /hook="(healthz|readyz|metrics)"/, 'probes are not hook calls');
});

t.test('each server counts its own calls', async (t) => {
  const first = server();
  const second = server();
  t.teardown(() => Promise.all([first.close(), second.close()]));
  await first.inject({ method: 'POST', url: '/ironic/customize', payload: { parent: ironic({}) } });
  const count = async (app: typeof first): Promise<number> =>
    sample((await app.inject({ method: 'GET', url: '/metrics' })).body, 'ironic_hook_calls_total{hook="customize",kind="Ironic"}');
  t.equal(await count(first), 1);
  t.equal(await count(second), 0);
});
