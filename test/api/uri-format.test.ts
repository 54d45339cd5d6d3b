/**
 * The `uri` format as the Kubernetes API server checks it (Go's url.ParseRequestURI, see
 * src/api/shared/formats.ts), against the verdicts of a real API server (test/fixtures/uri-cases.ts): the
 * port agrees with every case, the emulated API server uses it as it is, and the hooks' format (which also
 * wants an absolute URL the renderers can parse) refuses at least what the API server refuses.
 */
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { isRequestUri, isSchemaUri, isUri, registerFormats } from '../../src/api/shared/formats.js';
import { FORMAT_RULES, formatMessage } from '../../src/api/shared/schema-messages.js';
import { schemaProblems } from '../../src/cli/emulation/schema-check.js';
import { URI_CASES } from '../fixtures/uri-cases.js';

const verdict = (accepted: boolean): string => (accepted ? 'accepted' : 'refused');

t.test('isRequestUri agrees with every recorded verdict of the API server', async (t) => {
  t.ok(URI_CASES.some((c) => c.accepted) && URI_CASES.some((c) => !c.accepted), 'the table has both verdicts');
  for (const { value, accepted } of URI_CASES) t.equal(isRequestUri(value), accepted, `${JSON.stringify(value)} is ${verdict(accepted)}`);
});

t.test('isRequestUri: the parts of Go’s parser one at a time', async (t) => {
  const cases: readonly (readonly [string, boolean, string])[] = [
    ['', false, 'empty'],
    ['http://a/\u007f', false, 'DEL is a control character'],
    ['http://a/\u0080', true, 'a C1 character is not'],
    ['a1+-.:x', true, 'digits, +, - and . after the first letter of a scheme'],
    ['+a:x', false, 'a scheme starts with a letter'],
    ['http://a?', true, 'a lone trailing ?'],
    ['http://a/?b?', true, 'the query is cut at the first ?'],
    ['http:?x', true, 'with a scheme, what is left once the query is cut is opaque, even empty'],
    ['?x', false, 'no scheme and no path'],
    ['/a?%zz', true, 'a path with an unchecked query'],
    ['/a%2', false, 'an escape cut short'],
    ['/a%2g', false, 'an escape with a non-hex digit'],
    ['/a%2F', true, 'an escaped slash in a path'],
    ['http://a:8080', true, 'a port'],
    ['http://a:b:80/', true, 'only the text from the last : is the port'],
    ['http://a:80:x/', false, 'a port that is not a number'],
    ['http://[::1]x/', false, 'text after the bracket that is not a port'],
    ['http://[::1]:/', true, 'an empty port after a bracket'],
    ['http://[fe80::1%25en%200]/', true, 'a zone may escape a space'],
    ['http://[fe80::1%25en%2F]/', false, 'a zone may not escape a slash'],
    ['http://[fe80::1%25en%C3]/', false, 'a zone may not escape a non-ASCII byte'],
    ['http://[fe80::1%25en{]/', false, 'nor hold a character a host may not hold'],
    ['http://[fe80::1%41%25en]/', false, 'the address before the zone is a host'],
    ['http://a{b}/', false, 'braces in a host'],
    ['http://a<b>"/', true, 'angle brackets and quotes in a host'],
    ["http://!$&'()*+,;=~_-./", true, 'sub-delimiters and unreserved characters in a host'],
    ['http://a%25b/', true, 'an escaped percent sign in a host'],
    ['http://u%41@a/', true, 'escapes in user information'],
    ['http://u%4@a/', false, 'a bad escape in user information'],
    ['http://ü@a/', false, 'a non-ASCII character in user information'],
    ['http://u@v@a/', true, 'the host starts after the last @'],
    ['http://u/v@a/', true, 'an @ after the first / is in the path'],
    ['//a b/c', true, 'without a scheme // starts a path, whose spaces are fine'],
  ];
  for (const [value, accepted, why] of cases) t.equal(isRequestUri(value), accepted, `${JSON.stringify(value)} is ${verdict(accepted)}: ${why}`);
});

t.test('the hooks’ uri format refuses every value the API server refuses, and wants what the renderers parse', async (t) => {
  registerFormats();
  const schema = Type.String({ format: 'uri' });
  for (const { value, accepted } of URI_CASES) {
    if (!accepted) t.notOk(Value.Check(schema, value), `${JSON.stringify(value)} is refused`);
    t.equal(Value.Check(schema, value), isSchemaUri(value), `${JSON.stringify(value)}: the registered format is isSchemaUri`);
    t.equal(isSchemaUri(value), accepted && isUri(value), `${JSON.stringify(value)}: the API server's verdict and the WHATWG parser's`);
  }
  for (const value of ['https://images.example.com/ipa', 'file:///shared/ipa', 'oci://registry.example.com/ipa:latest', 'http://a/x ']) {
    t.ok(Value.Check(schema, value), `${JSON.stringify(value)} is accepted`);
  }
  for (const value of ['/abs/path', '//a/b', 'http://'])
    t.notOk(Value.Check(schema, value), `${JSON.stringify(value)}: the API server takes it, not the renderers`);
});

t.test('the emulated API server checks uri exactly as the API server does', async (t) => {
  const schema = { type: 'string', format: 'uri' };
  for (const { value, accepted } of URI_CASES) {
    t.same(schemaProblems(schema, value, 'x'), accepted ? [] : [`x: ${formatMessage(schema, value)}`], `${JSON.stringify(value)} is ${verdict(accepted)}`);
  }
});

t.test('the words of a refused uri point at the mistake', async (t) => {
  const schema = { format: 'uri' };
  t.ok(FORMAT_RULES['uri'], 'uri has words');
  const cases: readonly (readonly [string, RegExp])[] = [
    [' https://a/k', /^" https:\/\/a\/k" has spaces around it: remove them$/],
    ['\thttps://a/k ', /has spaces around it: remove them$/],
    ['https://a/k\t', /has spaces around it: remove them$/],
    ['https://a/\nk', /has a control character \(a tab or a line break\) in it: remove it$/],
    ['https://a/100%', /has a % that does not start an escape: write it as %25$/],
    ['https://a b/k', /is not an absolute URL .*: write it like https:\/\/192\.0\.2\.10:6385$/],
    [' foo', /is not an absolute URL/],
    ['foo%', /is not an absolute URL/],
  ];
  for (const [value, words] of cases) t.match(formatMessage(schema, value), words, JSON.stringify(value));
});
