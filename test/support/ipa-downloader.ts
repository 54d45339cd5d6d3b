/**
 * Stand-ins for what an IronicImageCache pod downloads from and with, so that the rendered init containers
 * run with bash on a scratch directory:
 *
 * - an IPA source on loopback that serves tarballs with an ETag and a Last-Modified header and answers
 *   `304 Not Modified` to a matching If-None-Match (GET and HEAD), or a status of the test's choosing, or
 *   nothing at all (stopped);
 * - a fake of the downloader image's `/usr/local/bin/get-resource.sh` that behaves as the real one
 *   (metal3-io/ironic-ipa-downloader at 854d640) does in the paths the cache meets, written from that
 *   behaviour (see `FAKE_GET_RESOURCE`).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One published tarball. */
type Published = { readonly body: Buffer; readonly etag: string; readonly lastModified: string };

export type IpaSource = {
  /** The base URL (IPA_BASEURI). */
  readonly url: string;
  /** The requests seen since the last call, as `METHOD /path STATUS`, and forgets them. */
  readonly takeRequests: () => string[];
  /** Publishes a tarball of `<stem>.kernel` and `<stem>.initramfs` whose contents name `version` ('' as lastModified: no such header). */
  readonly publish: (file: string, version: string, lastModified?: string) => void;
  /** Publishes bytes as they are (a broken tarball). */
  readonly publishBytes: (file: string, body: Buffer, lastModified?: string) => void;
  /** Answers every request with this status and no body (undefined: serve normally). */
  answer: number | undefined;
  /** Writes the header as `etag` (as curl stores HTTP/2 headers) instead of `ETag`. */
  lowerCaseETag: boolean;
  /** Stops listening (connections are refused) or listens again on the same port. */
  readonly stop: () => Promise<void>;
  readonly start: () => Promise<void>;
};

const DEFAULT_LAST_MODIFIED = 'Wed, 01 Oct 2025 07:28:00 GMT';

/** A tar.gz of `<stem>.kernel` and `<stem>.initramfs`, made with tar as IPA's tarballs are. */
const tarball = (stem: string, version: string): Buffer => {
  const dir = mkdtempSync(join(tmpdir(), 'ipa-tarball-'));
  writeFileSync(join(dir, `${stem}.kernel`), `kernel ${version}\n`);
  writeFileSync(join(dir, `${stem}.initramfs`), `initramfs ${version}\n`);
  execFileSync('tar', ['-czf', join(dir, 'out.tar.gz'), '-C', dir, `${stem}.kernel`, `${stem}.initramfs`]);
  return readFileSync(join(dir, 'out.tar.gz'));
};

export const ipaSource = async (): Promise<IpaSource> => {
  const files = new Map<string, Published>();
  let requests: string[] = [];
  let server: Server | undefined;
  let port = 0;
  const source: IpaSource = {
    url: '',
    takeRequests: () => {
      const seen = requests;
      requests = [];
      return seen;
    },
    publish: (file, version, lastModified = DEFAULT_LAST_MODIFIED) => source.publishBytes(file, tarball(file.replace(/\.tar\.gz$/, ''), version), lastModified),
    publishBytes: (file, body, lastModified = DEFAULT_LAST_MODIFIED) => {
      files.set(`/${file}`, { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`, lastModified });
    },
    answer: undefined,
    lowerCaseETag: false,
    stop: async () => {
      const running = server;
      server = undefined;
      if (running === undefined) return;
      running.closeAllConnections();
      await new Promise<void>((resolve) => running.close(() => resolve()));
    },
    start: async () => {
      const next = createServer((request, response) => {
        const method = request.method ?? 'GET';
        const reply = (status: number, headers: Record<string, string> = {}, body?: Buffer): void => {
          requests.push(`${method} ${request.url ?? ''} ${status}`);
          response.writeHead(status, { ...headers, 'Content-Length': String(status === 304 ? 0 : (body?.length ?? 0)) });
          response.end(method === 'HEAD' || status === 304 ? undefined : body);
        };
        const file = files.get(request.url ?? '');
        if (source.answer !== undefined) {
          reply(source.answer);
          return;
        }
        if (file === undefined) {
          reply(404);
          return;
        }
        const headers = { [source.lowerCaseETag ? 'etag' : 'ETag']: file.etag, ...(file.lastModified !== '' && { 'Last-Modified': file.lastModified }) };
        if (request.headers['if-none-match'] === file.etag) {
          reply(304, headers);
          return;
        }
        reply(200, headers, file.body);
      });
      await new Promise<void>((resolve) => next.listen(port, '127.0.0.1', resolve));
      port = (next.address() as AddressInfo).port;
      server = next;
    },
  };
  await source.start();
  Object.assign(source, { url: `http://127.0.0.1:${port}` });
  return source;
};

/**
 * The fake get-resource.sh, for a volume at `<root>/shared`. What it models of the real script:
 *
 * - names: `<IPA_BASEURI>/<IPA_FILENAME>`, by default `ipa-<IPA_FLAVOR>-<IPA_BRANCH with / as ->.tar.gz`
 *   (defaults centos9, master, tarballs.opendev.org); links `ironic-python-agent_<IPA_ARCH>.{headers,kernel,initramfs}`;
 * - an empty volume (no readable `ironic-python-agent_<arch>.headers`): a GET (curl without --fail, keeping
 *   the response headers) into a temporary directory under `/shared/tmp`; a non-empty body is extracted,
 *   the directory moved to `<tarball>-<ETag without quotes>` (into it, when that name exists already) and
 *   the links pointed into it; an empty body removes the temporary directory and succeeds with nothing;
 * - a volume with its previous download: the same GET with If-None-Match (the ETag read only from a header
 *   spelled `ETag:`); when curl fails it copies `<images>/<tarball>.headers` (which only a CACHEURL mirror
 *   leaves); when nothing was downloaded it looks for `<images>/<tarball without .tar.gz>-<ETag>/<tarball>`
 *   (another name than the one it writes), does not find it and moves `<images>/<tarball>.headers`, which
 *   is not there: `mv: cannot stat`, exit 1, under `set -e`.
 */
export const FAKE_GET_RESOURCE = (root: string): string => `#!/bin/bash
set -eu
images='${root}/shared/html/images'
scratch='${root}/shared/tmp'
branch="\${IPA_BRANCH:-master}"
tarball="\${IPA_FILENAME:-ipa-\${IPA_FLAVOR:-centos9}-\${branch//\\//-}.tar.gz}"
stem="\${tarball%.tar.gz}"
links="ironic-python-agent\${IPA_ARCH:+_\${IPA_ARCH}}"
source="\${IPA_BASEURI:-https://tarballs.opendev.org/openstack/ironic-python-agent/dib}/\${tarball}"
etag_in() { sed -n 's/^ETag: *\\([^ ]*\\).*/\\1/p' "$1" | tr -d '\\r'; }
mkdir -p "$images" "$scratch"
work="$(mktemp -d -p "$scratch")"
cd "$work"
if [ -r "$images/$links.headers" ]; then
  known="$(etag_in "$images/$links.headers")"
  curl -g -sS --dump-header "$tarball.headers" -O "$source" --header "If-None-Match: $known" || cp "$images/$tarball.headers" .
  tag="$(etag_in "$tarball.headers" | tr -d '"')"
  if [ ! -s "$tarball" ] && [ ! -e "$images/$stem-$tag/$tarball" ]; then
    mv "$images/$tarball.headers" .
    curl -g -sS -O "\${CACHEURL:-}/$stem-$tag/$tarball"
  fi
else
  curl -g -sS --dump-header "$tarball.headers" -O "$source"
fi
if [ ! -s "$tarball" ]; then
  rm -rf "$work"
  exit 0
fi
tar -xzf "$tarball"
tag="$(etag_in "$tarball.headers" | tr -d '"')"
cd "$images"
chmod 755 "$work"
mv "$work" "$tarball-$tag"
for part in headers:$tarball.headers initramfs:$stem.initramfs kernel:$stem.kernel; do
  ln -sf "$tarball-$tag/\${part#*:}" "$links.\${part%%:*}"
done
`;

export type ScriptRun = { readonly code: number; readonly stdout: string; readonly stderr: string };

/** A scratch volume at `<root>/shared` and the fake downloader at `<root>/get-resource.sh`. */
export type Scratch = {
  readonly root: string;
  readonly images: string;
  /** Runs a script of the pod with bash, its /shared and the downloader's path moved to the scratch directory. */
  readonly run: (script: string, env: Readonly<Record<string, string>>) => Promise<ScriptRun>;
};

export const scratchVolume = (): Scratch => {
  const root = mkdtempSync(join(tmpdir(), 'ipa-cache-'));
  mkdirSync(join(root, 'shared'));
  const fake = join(root, 'get-resource.sh');
  writeFileSync(fake, FAKE_GET_RESOURCE(root));
  chmodSync(fake, 0o755);
  const local = (script: string): string => script.replaceAll('/usr/local/bin/get-resource.sh', fake).replaceAll('/shared', join(root, 'shared'));
  return {
    root,
    images: join(root, 'shared', 'html', 'images'),
    // Asynchronous, since the source answers from this process; stdin is not a socket, or bash would read ~/.bashrc.
    run: (script, env) =>
      new Promise((resolve, reject) => {
        const child = spawn('bash', ['-c', local(script)], {
          env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
      }),
  };
};
