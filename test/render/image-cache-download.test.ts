/**
 * The init containers of an IronicImageCache pod, run as rendered (bash, their command and variables) on a
 * scratch volume that outlives the pod, as the cache's claim does, with a fake of the downloader image's
 * get-resource.sh against an IPA source on loopback (test/support/ipa-downloader.ts).
 */
import t, { type Test } from 'tap';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ipaSource, scratchVolume, type IpaSource, type Scratch } from '../support/ipa-downloader.js';

const MASTER = 'ipa-centos9-master.tar.gz';

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
