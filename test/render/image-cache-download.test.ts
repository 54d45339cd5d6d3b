/**
 * The init containers of an IronicImageCache pod, run as rendered (bash, their command and variables) on a
 * scratch volume that outlives the pod, as the cache's claim does, with a fake of the downloader image's
 * get-resource.sh against an IPA source on loopback (test/support/ipa-downloader.ts).
 */
import t, { type Test } from 'tap';
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { parseIronicImageCache } from '../../src/api/ironic-image-cache/parse.js';
import { renderCacheStatefulSet } from '../../src/render/image-cache/render.js';
import { testConfig } from '../helpers/hooks.js';
import { ipaSource, scratchVolume, type IpaSource, type Scratch, type ScriptRun } from '../support/ipa-downloader.js';

const MASTER = 'ipa-centos9-master.tar.gz';
const AARCH64 = 'ipa-centos9-master-aarch64.tar.gz';

const initContainers = (spec: Record<string, unknown>): IContainer[] => {
  const parsed = parseIronicImageCache(spec);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return (
    renderCacheStatefulSet({ name: 'ipa', namespace: 'metal3', model: parsed.model, config: testConfig().render }).spec?.template.spec?.initContainers ?? []
  );
};

type Start = { readonly failed?: string; readonly runs: readonly ScriptRun[]; readonly stdout: string; readonly stderr: string };

/** Starts the pod's init containers in order on the volume, as the kubelet does: the first failure stops the start. */
const startPod = async (volume: Scratch, spec: Record<string, unknown>): Promise<Start> => {
  const runs: ScriptRun[] = [];
  for (const container of initContainers(spec)) {
    const [shell, flag, script] = container.command ?? [];
    if (shell !== '/bin/bash' || flag !== '-c' || script === undefined)
      throw new Error(`${container.name} is not a bash script: ${JSON.stringify(container.command)}`);
    const run = await volume.run(script, Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? ''])));
    runs.push(run);
    if (run.code !== 0) return { failed: container.name, runs, stdout: runs.map((r) => r.stdout).join(''), stderr: runs.map((r) => r.stderr).join('') };
  }
  return { runs, stdout: runs.map((r) => r.stdout).join(''), stderr: runs.map((r) => r.stderr).join('') };
};

/** What httpd would serve: the kernel and initramfs of an architecture, through their links. */
const served = (volume: Scratch, architecture = 'x86_64'): string => {
  const read = (part: string): string => {
    const file = join(volume.images, `ironic-python-agent_${architecture}.${part}`);
    return existsSync(file) ? readFileSync(file, 'utf8').trim() : `no ${part}`;
  };
  return `${read('kernel')}, ${read('initramfs')}`;
};

const link = (volume: Scratch, architecture = 'x86_64'): string => readlinkSync(join(volume.images, `ironic-python-agent_${architecture}.kernel`));

const withSource = async (t: Test): Promise<IpaSource> => {
  const source = await ipaSource();
  t.teardown(() => source.stop());
  return source;
};

t.test('the fake downloader fails where the real one does: a restart of its own with a 304 source or no source', async (t) => {
  const source = await withSource(t);
  source.publish(MASTER, 'v1');
  const volume = scratchVolume();
  const env = { IPA_ARCH: 'x86_64', IPA_BASEURI: source.url };
  const first = await volume.run('/usr/local/bin/get-resource.sh', env);
  t.equal(first.code, 0, first.stderr);
  t.equal(served(volume), 'kernel v1, initramfs v1');
  t.same(source.takeRequests(), [`GET /${MASTER} 200`]);
  const restart = await volume.run('/usr/local/bin/get-resource.sh', env);
  t.same(source.takeRequests(), [`GET /${MASTER} 304`], 'it asks with If-None-Match');
  t.equal(restart.code, 1, 'and fails on the answer 304');
  t.match(restart.stderr, /mv: cannot stat '[^']*\/shared\/html\/images\/ipa-centos9-master\.tar\.gz\.headers'/);
  await source.stop();
  const down = await volume.run('/usr/local/bin/get-resource.sh', env);
  t.equal(down.code, 1, 'and when the source does not answer');
  t.match(down.stderr, /cp: cannot stat '[^']*\/ipa-centos9-master\.tar\.gz\.headers'/);
  t.equal(served(volume), 'kernel v1, initramfs v1', 'the files stay as they were');
});

t.test('the fake downloader, on a source without an "ETag:" header (HTTP/2 writes etag:), keeps the old IPA after a change', async (t) => {
  const source = await withSource(t);
  source.lowerCaseETag = true;
  source.publish(MASTER, 'v1');
  const volume = scratchVolume();
  const env = { IPA_ARCH: 'x86_64', IPA_BASEURI: source.url };
  t.equal((await volume.run('/usr/local/bin/get-resource.sh', env)).code, 0);
  t.equal(link(volume), `${MASTER}-/ipa-centos9-master.kernel`, 'a directory named with an empty ETag');
  source.publish(MASTER, 'v2');
  t.equal((await volume.run('/usr/local/bin/get-resource.sh', env)).code, 0);
  t.same(source.takeRequests(), [`GET /${MASTER} 200`, `GET /${MASTER} 200`], 'no If-None-Match could be sent: downloaded again');
  t.equal(served(volume), 'kernel v1, initramfs v1', 'the new download went into the old directory, the links still point at the old files');
});

t.test('a restart with a filled volume: no download while the source is unchanged, a download when it changed, the files kept while it is down', async (t) => {
  const source = await withSource(t);
  const volume = scratchVolume();
  const spec = { agentDownloadURL: source.url };
  source.publish(MASTER, 'v1');

  const first = await startPod(volume, spec);
  t.equal(first.failed, undefined, first.stderr);
  t.same(source.takeRequests(), [`GET /${MASTER} 200`], 'the first start downloads');
  t.equal(served(volume), 'kernel v1, initramfs v1');
  const v1 = link(volume);

  const unchanged = await startPod(volume, spec);
  t.equal(unchanged.failed, undefined, unchanged.stderr);
  t.same(source.takeRequests(), [`HEAD /${MASTER} 304`], 'a restart asks with the ETag it has and downloads nothing');
  t.match(unchanged.stdout, /ironic-python-agent_x86_64: http:\/\/127\.0\.0\.1:\d+\/ipa-centos9-master\.tar\.gz is unchanged \(ETag "[0-9a-f]+"\): keeping /);
  t.equal(link(volume), v1, 'the links are as they were');
  t.equal(served(volume), 'kernel v1, initramfs v1');

  source.publish(MASTER, 'v2');
  const changed = await startPod(volume, spec);
  t.equal(changed.failed, undefined, changed.stderr);
  t.same(source.takeRequests(), [`HEAD /${MASTER} 200`, `GET /${MASTER} 200`], 'a changed source is downloaded');
  t.match(changed.stdout, /answered 200 to If-None-Match "[0-9a-f]+": downloading again/);
  t.equal(served(volume), 'kernel v2, initramfs v2');
  t.not(link(volume), v1);
  t.same(
    readdirSync(volume.images).filter((f) => !f.startsWith('ironic-python-agent')),
    [link(volume).split('/')[0]],
    'the previous download is pruned',
  );

  await source.stop();
  const down = await startPod(volume, spec);
  t.equal(down.failed, undefined, 'a source that does not answer: the download already there is served');
  t.match(down.stderr, /could not be checked \(no answer\): serving the download already in /);
  t.equal(served(volume), 'kernel v2, initramfs v2');

  await source.start();
  source.answer = 503;
  const unavailable = await startPod(volume, spec);
  t.equal(unavailable.failed, undefined, 'nor does a 5xx');
  t.match(unavailable.stderr, /could not be checked \(HTTP 503\)/);
  t.same(source.takeRequests(), [`HEAD /${MASTER} 503`]);
  t.equal(served(volume), 'kernel v2, initramfs v2');
});

t.test('a restart whose download fails fails the init container and keeps the previous download for the next start', async (t) => {
  const source = await withSource(t);
  const volume = scratchVolume();
  const spec = { agentDownloadURL: source.url };
  source.publish(MASTER, 'v1');
  t.equal((await startPod(volume, spec)).failed, undefined);
  const v1 = link(volume);

  source.publishBytes(MASTER, Buffer.from('not a tarball'));
  const broken = await startPod(volume, spec);
  t.equal(broken.failed, 'download-x86-64', 'a changed source that cannot be extracted fails the download');
  t.match(
    broken.stderr,
    /the download of http:\/\/127\.0\.0\.1:\d+\/ipa-centos9-master\.tar\.gz failed: the downloader exited with code \d+ \(the previous download stays in /,
  );
  t.equal(link(volume), v1, 'the previous download is back in place');
  t.equal(served(volume), 'kernel v1, initramfs v1');

  await source.stop();
  t.equal((await startPod(volume, spec)).failed, undefined, 'so the next start serves it while the source is down');
  await source.start();

  source.answer = 404;
  const gone = await startPod(volume, spec);
  t.equal(gone.failed, 'download-x86-64', 'a source without the tarball is not hidden');
  t.match(gone.stderr, /failed: the downloader left no complete download \(the previous download stays in /);
  t.equal(served(volume), 'kernel v1, initramfs v1');
  source.answer = undefined;
  source.takeRequests();

  source.publish(MASTER, 'v3');
  t.equal((await startPod(volume, spec)).failed, undefined, 'the source back with a new IPA');
  t.equal(served(volume), 'kernel v3, initramfs v3');
});

t.test('the first start fails while the source does not answer', async (t) => {
  const source = await withSource(t);
  await source.stop();
  const volume = scratchVolume();
  const start = await startPod(volume, { agentDownloadURL: source.url });
  t.equal(start.failed, 'download-x86-64');
  t.match(start.stderr, /the download of http:\/\/127\.0\.0\.1:\d+\/ipa-centos9-master\.tar\.gz failed: the downloader exited with code 7/);
  t.equal(served(volume), 'no kernel, no initramfs');
});

t.test('a source without "ETag:" (etag: in any case is read): unchanged is kept, a change is downloaded and served', async (t) => {
  const source = await withSource(t);
  source.lowerCaseETag = true;
  const volume = scratchVolume();
  const spec = { agentDownloadURL: source.url };
  source.publish(MASTER, 'v1');
  t.equal((await startPod(volume, spec)).failed, undefined);
  source.publish(MASTER, 'v2');
  t.equal((await startPod(volume, spec)).failed, undefined);
  t.equal(served(volume), 'kernel v2, initramfs v2');
  source.takeRequests();
  t.equal((await startPod(volume, spec)).failed, undefined);
  t.same(source.takeRequests(), [`HEAD /${MASTER} 304`], 'unchanged: nothing downloaded');
  source.publish(MASTER, 'v3');
  t.equal((await startPod(volume, spec)).failed, undefined);
  t.equal(served(volume), 'kernel v3, initramfs v3', 'the new download does not land inside the old directory of the same name');
  t.same(
    readdirSync(volume.images).filter((f) => !f.startsWith('ironic-python-agent')),
    [`${MASTER}-`],
  );
});

t.test('a spec change to another tarball downloads it, whatever the source says of the old one', async (t) => {
  const source = await withSource(t);
  const volume = scratchVolume();
  source.publish(MASTER, 'master');
  source.publish('ipa-centos9-stable-2025.1.tar.gz', 'stable');
  t.equal((await startPod(volume, { agentDownloadURL: source.url })).failed, undefined);
  source.takeRequests();
  const branch = await startPod(volume, { agentDownloadURL: source.url, agentBranch: 'stable/2025.1' });
  t.equal(branch.failed, undefined, branch.stderr);
  t.match(branch.stdout, /is not a download of ipa-centos9-stable-2025\.1\.tar\.gz/);
  t.same(source.takeRequests(), ['GET /ipa-centos9-stable-2025.1.tar.gz 200']);
  t.equal(served(volume), 'kernel stable, initramfs stable');
});

t.test('the download refuses an IPA older than agentMinimumModificationTime, also when it was kept', async (t) => {
  const source = await withSource(t);
  const volume = scratchVolume();
  source.publish(MASTER, 'v1', 'Wed, 01 Oct 2025 07:28:00 GMT');
  const spec = (minimum?: string): Record<string, unknown> => ({
    agentDownloadURL: source.url,
    ...(minimum !== undefined && { agentMinimumModificationTime: minimum }),
  });
  t.equal((await startPod(volume, spec())).failed, undefined, 'no minimum: accepted');
  t.equal((await startPod(volume, spec('2025-10-01T07:28:00Z'))).failed, undefined, 'exactly the minimum: accepted');
  const older = await startPod(volume, spec('2025-10-02T00:00:00+02:00'));
  t.equal(older.failed, 'download-x86-64', 'older: refused');
  t.match(older.stderr, /last modified Wed, 01 Oct 2025 07:28:00 GMT, before agentMinimumModificationTime/, 'saying why');
  t.same(source.takeRequests().slice(-1), [`HEAD /${MASTER} 304`], 'of the download kept');
  const unknown = scratchVolume();
  source.publish(MASTER, 'v2', '');
  const undated = await startPod(unknown, spec('2025-10-01T00:00:00Z'));
  t.equal(undated.failed, 'download-x86-64', 'no Last-Modified: refused');
  t.match(undated.stderr, /at an unknown time/);
});

t.test('the prune container keeps what the links point to and removes the rest', async (t) => {
  const source = await withSource(t);
  const volume = scratchVolume();
  source.publish(MASTER, 'v1');
  source.publish(AARCH64, 'arm');
  const both = { agentDownloadURL: source.url, architectures: [{ name: 'x86_64' }, { name: 'aarch64', filename: AARCH64 }] };
  t.equal((await startPod(volume, both)).failed, undefined);
  t.equal(served(volume, 'aarch64'), 'kernel arm, initramfs arm');
  mkdirSync(join(volume.images, 'ipa-centos9-master.tar.gz-0ld'));
  symlinkSync('ipa-centos9-master.tar.gz-0ld/k', join(volume.images, 'ironic-python-agent.kernel'));
  mkdirSync(join(volume.root, 'shared', 'tmp', 'tmp.half'));
  const x86 = link(volume);
  const pruned = await startPod(volume, { agentDownloadURL: source.url });
  t.equal(pruned.failed, undefined, pruned.stderr);
  t.match(pruned.stdout, /removing ironic-python-agent_aarch64\.kernel/);
  t.match(pruned.stdout, /removing the older download ipa-centos9-master\.tar\.gz-0ld/);
  t.equal(link(volume), x86, 'the cached architecture is kept');
  t.equal(served(volume), 'kernel v1, initramfs v1', 'with its files');
  t.same(
    readdirSync(volume.images).sort(),
    [x86.split('/')[0], 'ironic-python-agent_x86_64.headers', 'ironic-python-agent_x86_64.initramfs', 'ironic-python-agent_x86_64.kernel'],
    'an architecture no longer cached, links of other names and older downloads are removed',
  );
  t.same(readdirSync(join(volume.root, 'shared', 'tmp')), [], 'and leftovers of interrupted downloads');
  const again = await startPod(volume, { agentDownloadURL: source.url });
  t.equal(again.failed, undefined, 'a second run has nothing to do');
  t.notMatch(again.stdout, /removing/);
});
