/**
 * String formats used by the API schemas, registered in TypeBox's FormatRegistry. TypeBox rejects every
 * value of a format it does not know, so registerFormats() must run before any schema check; validation
 * calls it itself.
 */
import { FormatRegistry } from '@sinclair/typebox';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * An absolute URL: it parses with the WHATWG URL parser, which always yields a scheme. The renderers parse
 * these URLs with `new URL`, so the hooks' `uri` wants this on top of what the API server wants.
 */
export const isUri = (value: string): boolean => {
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
};

// --- The API server's `uri` ---------------------------------------------------------------------------
//
// Kubernetes checks `format: uri` with go-openapi strfmt, which accepts what Go's url.ParseRequestURI
// accepts: net/url's parse(rawURL, viaRequest = true). The functions below port it step by step, so that
// the hooks and the emulated API server refuse exactly what a real API server refuses (a leading space,
// a space or a backslash in the host, a bad %-escape), and accept what it accepts (a trailing space, a
// relative path, an opaque `mailto:a@b`). Go works on bytes; every delimiter is ASCII and every
// non-ASCII character is made of bytes >= 0x80 in UTF-8, so UTF-16 code units give the same verdicts.

const isLetter = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

/** A byte Go's stringContainsCTLByte finds (a tab, a line break, DEL): one anywhere makes a URL invalid. */
export const isControlCharacter = (c: string): boolean => c < ' ' || c === '\u007f';

/**
 * Go's getScheme: the text before the first `:` when it is a scheme (a letter, then letters, digits, `+`,
 * `-` or `.`); no scheme when another character comes first; undefined (an error) for a leading `:`.
 */
const splitScheme = (value: string): { readonly scheme: string; readonly rest: string } | undefined => {
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charAt(i);
    if (isLetter(c)) continue;
    if (isDigit(c) || c === '+' || c === '-' || c === '.') {
      if (i === 0) return { scheme: '', rest: value };
      continue;
    }
    if (c === ':') return i === 0 ? undefined : { scheme: value.slice(0, i), rest: value.slice(i + 1) };
    return { scheme: '', rest: value };
  }
  return { scheme: '', rest: value };
};

/** Go drops the query unchecked: a lone trailing `?` (ForceQuery), else everything from the first `?`. The fragment stays. */
const withoutQuery = (rest: string): string => {
  const first = rest.indexOf('?');
  return first < 0 ? rest : rest.slice(0, first);
};

/** The characters Go's shouldEscape lets through unescaped in a host (encodeHost and encodeZone modes). */
const HOST_CHARACTER = /^[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]$/;

/**
 * The modes of Go's unescape that parse uses: a path (and user information, checked the same way) needs
 * well-formed escapes only; a host and an IPv6 zone also restrict the characters and what they escape.
 */
type Escapes = 'path' | 'host' | 'zone';

/**
 * A `%XX` escape that a mode of Go's unescape refuses: `%25` is always fine; a host may escape only
 * non-ASCII bytes; a zone (RFC 6874) only what a host could hold unescaped, or a space (Windows puts them there).
 */
const badEscape = (hex: string, mode: Escapes): boolean => {
  const byte = Number.parseInt(hex, 16);
  if (hex === '25' || mode === 'path') return false;
  if (mode === 'host') return byte < 0x80;
  return byte !== 0x20 && !HOST_CHARACTER.test(String.fromCharCode(byte));
};

/**
 * Go's unescape, as a check: every `%` starts a two-hex-digit escape; in a host or a zone, ASCII bytes
 * must also be ones a host may hold, and escapes may not stand for ASCII bytes (see badEscape).
 */
const unescapes = (text: string, mode: Escapes): boolean => {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (c === '%') {
      const hex = text.slice(i + 1, i + 3);
      if (!isHex(hex[0]) || !isHex(hex[1]) || badEscape(hex, mode)) return false;
      i += 2;
    } else if (mode !== 'path' && c < '\u0080' && !HOST_CHARACTER.test(c)) {
      return false;
    }
  }
  return true;
};

/** Go's validOptionalPort: nothing, or `:` and digits (none is fine). */
const isOptionalPort = (text: string): boolean => /^(:[0-9]*)?$/.test(text);

/** Go's parseHost: an IP literal in brackets (with a `%25` zone) or a name, each with an optional port. */
const isValidHost = (host: string): boolean => {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0 || !isOptionalPort(host.slice(close + 1))) return false;
    const zone = host.slice(0, close).indexOf('%25');
    if (zone >= 0) return unescapes(host.slice(0, zone), 'host') && unescapes(host.slice(zone, close), 'zone') && unescapes(host.slice(close), 'host');
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && !isOptionalPort(host.slice(colon))) return false;
  }
  return unescapes(host, 'host');
};

/** Go's validUserinfo (RFC 3986 userinfo characters, ASCII only) and the escapes of the user and password. */
const isValidUserinfo = (userinfo: string): boolean => /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo) && unescapes(userinfo, 'path');

/** Go's parseAuthority: `userinfo@host`, split at the last `@`. */
const isValidAuthority = (authority: string): boolean => {
  const at = authority.lastIndexOf('@');
  return isValidHost(authority.slice(at + 1)) && (at < 0 || isValidUserinfo(authority.slice(0, at)));
};

/**
 * Whether the Kubernetes API server accepts `value` for `format: uri`: Go's url.ParseRequestURI succeeds.
 * An absolute URL or an absolute path; an opaque `scheme:rest`; the query is not checked, and the
 * fragment is read as part of the path.
 */
export const isRequestUri = (value: string): boolean => {
  if (value === '' || Array.from(value).some(isControlCharacter)) return false;
  if (value === '*') return true;
  const split = splitScheme(value);
  if (split === undefined) return false;
  const { scheme } = split;
  const rest = withoutQuery(split.rest);
  // A rootless rest is opaque with a scheme (mailto:a@b), and not a request URI without one.
  if (!rest.startsWith('/')) return scheme !== '';
  // `//` starts an authority after a scheme only: without one, `//a/b` is a path.
  if (scheme === '' || !rest.startsWith('//')) return unescapes(rest, 'path');
  const slash = rest.indexOf('/', 2);
  const [authority, path] = slash < 0 ? [rest.slice(2), ''] : [rest.slice(2, slash), rest.slice(slash)];
  return isValidAuthority(authority) && unescapes(path, 'path');
};

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** An RFC 3339 timestamp such as 2024-05-01T12:00:00Z, with real calendar dates. */
export const isDateTime = (value: string): boolean => {
  const match = RFC3339.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const [offsetHours, offsetMinutes] = [Number(match[9] ?? 0), Number(match[10] ?? 0)];
  if (year === undefined || month === undefined || day === undefined) return false;
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    (hour ?? 99) <= 23 &&
    (minute ?? 99) <= 59 &&
    (second ?? 99) <= 60 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59
  );
};

/**
 * The hooks' `uri`: what the API server accepts (isRequestUri), and only absolute URLs that the renderers
 * can parse (isUri). The hooks thus refuse everything the API server would refuse.
 */
export const isSchemaUri = (value: string): boolean => isUri(value) && isRequestUri(value);

/** Registers the `uri` and `date-time` formats. Safe to call any number of times. */
export const registerFormats = (): void => {
  if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', isSchemaUri);
  if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', isDateTime);
};
