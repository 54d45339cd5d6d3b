/**
 * DNS over UDP for the tests that run dnsmasq (RFC 1035, A records only), where dig and host may not be
 * installed. Run as a program inside a network namespace (`node test/support/dns.ts ...`: it imports nothing of
 * ours, so Node strips its types alone):
 *
 * - `ask <server> <name>` sends one query for the A records of `name` to port 53 of `server` and prints the
 *   answer as JSON (`{"rcode":0,"addresses":["198.51.100.7"]}`), or `{"timeout":true}` after 3 s;
 * - `serve <address> <name>=<ipv4>...` answers on port 53 of `address`: the given address for each name,
 *   NXDOMAIN for other names; it logs a line once it listens, and one per query.
 */
import { createSocket } from 'node:dgram';
import { pathToFileURL } from 'node:url';

const TYPE_A = 1;
const CLASS_IN = 1;
const NXDOMAIN = 3;
const ASK_TIMEOUT_MS = 3000;

export type Answer = { readonly id: number; readonly rcode: number; readonly addresses: readonly string[] };
export type Question = { readonly id: number; readonly name: string; readonly type: number; readonly end: number };

const encodeName = (name: string): Buffer =>
  Buffer.concat([
    ...name
      .split('.')
      .filter((label) => label !== '')
      .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')])),
    Buffer.from([0]),
  ]);

/** A recursive query for the A records of `name`. */
export const encodeQuery = (id: number, name: string): Buffer => {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2); // recursion desired
  header.writeUInt16BE(1, 4);
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(TYPE_A, 0);
  tail.writeUInt16BE(CLASS_IN, 2);
  return Buffer.concat([header, encodeName(name), tail]);
};

/** The name at `offset` (following compression pointers) and the offset after it in the message. */
const readName = (message: Buffer, offset: number): { name: string; next: number } => {
  const labels: string[] = [];
  let at = offset;
  let next: number | undefined;
  for (let hops = 0; hops < 64; hops += 1) {
    const length = message.readUInt8(at);
    if (length === 0) return { name: labels.join('.'), next: next ?? at + 1 };
    if ((length & 0xc0) === 0xc0) {
      next ??= at + 2;
      at = message.readUInt16BE(at) & 0x3fff;
    } else {
      labels.push(message.toString('ascii', at + 1, at + 1 + length));
      at += 1 + length;
    }
  }
  throw new Error('a DNS name with a pointer loop');
};

/** The first question of a message. */
export const decodeQuestion = (message: Buffer): Question => {
  const { name, next } = readName(message, 12);
  return { id: message.readUInt16BE(0), name, type: message.readUInt16BE(next), end: next + 4 };
};

/** The answer code and the A records of a response. */
export const decodeAnswer = (message: Buffer): Answer => {
  const answers = message.readUInt16BE(6);
  let at = decodeQuestion(message).end;
  const addresses: string[] = [];
  for (let i = 0; i < answers; i += 1) {
    at = readName(message, at).next;
    const type = message.readUInt16BE(at);
    const length = message.readUInt16BE(at + 8);
    if (type === TYPE_A && length === 4) addresses.push([...message.subarray(at + 10, at + 14)].join('.'));
    at += 10 + length;
  }
  return { id: message.readUInt16BE(0), rcode: message.readUInt16BE(2) & 0x000f, addresses };
};

/** The response to `query`: one A record with `address`, or NXDOMAIN without one. */
export const encodeAnswer = (query: Buffer, address: string | undefined): Buffer => {
  const question = decodeQuestion(query);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(question.id, 0);
  header.writeUInt16BE(0x8180 | (address === undefined ? NXDOMAIN : 0), 2); // a response, recursion available
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(address === undefined ? 0 : 1, 6);
  const body = query.subarray(12, question.end);
  if (address === undefined) return Buffer.concat([header, body]);
  const record = Buffer.alloc(16);
  record.writeUInt16BE(0xc00c, 0); // the name of the question
  record.writeUInt16BE(TYPE_A, 2);
  record.writeUInt16BE(CLASS_IN, 4);
  record.writeUInt32BE(60, 6);
  record.writeUInt16BE(4, 10);
  address.split('.').forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
  return Buffer.concat([header, body, record]);
};

/** Asks `server` once; the answer, or undefined after the timeout. */
export const ask = (server: string, name: string, timeoutMs = ASK_TIMEOUT_MS): Promise<Answer | undefined> =>
  new Promise((resolve) => {
    const socket = createSocket('udp4');
    const id = Math.floor(Math.random() * 0xffff);
    const done = (answer: Answer | undefined): void => {
      clearTimeout(timer);
      socket.close();
      resolve(answer);
    };
    const timer = setTimeout(() => {
      done(undefined);
    }, timeoutMs);
    socket.on('message', (message) => {
      const answer = decodeAnswer(message);
      if (answer.id === id) done(answer);
    });
    socket.send(encodeQuery(id, name), 53, server);
  });

/** Answers on port 53 of `address` from `names` until the process is stopped. */
export const serve = (address: string, names: ReadonlyMap<string, string>): void => {
  const socket = createSocket('udp4');
  socket.on('message', (query, from) => {
    const { name, type } = decodeQuestion(query);
    const found = type === TYPE_A ? names.get(name.toLowerCase()) : undefined;
    console.log(`query ${name} type ${String(type)} from ${from.address}: ${found ?? 'NXDOMAIN'}`);
    socket.send(encodeAnswer(query, found), from.port, from.address);
  });
  socket.on('listening', () => {
    console.log(`listening on ${address}:53`);
  });
  socket.bind(53, address);
};

const main = async (args: readonly string[]): Promise<void> => {
  const [command, address = '', ...rest] = args;
  if (command === 'ask') {
    const answer = await ask(address, rest[0] ?? '');
    console.log(JSON.stringify(answer === undefined ? { timeout: true } : { rcode: answer.rcode, addresses: answer.addresses }));
  } else if (command === 'serve') {
    serve(address, new Map(rest.map((entry) => [entry.slice(0, entry.indexOf('=')).toLowerCase(), entry.slice(entry.indexOf('=') + 1)])));
  } else {
    throw new Error('usage: dns.ts ask <server> <name> | dns.ts serve <address> <name>=<ipv4>...');
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
