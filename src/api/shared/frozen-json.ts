/**
 * Frozen answers that remember their JSON text. A kept render is handed to every sync with an equal input and
 * sent in the response each time; V8 writes a frozen object's JSON about twice as slowly as a plain one's, and
 * the text never changes. So the text of a frozen copy and of its members is recorded once, when the copy is
 * made, and `jsonText` reuses it where the copy's objects appear in a response.
 */
import { deepFrozen, isPlainObject } from './memo.js';

/** The JSON text of objects frozen by frozenJsonCopy, by identity: a frozen object cannot change. */
const recorded = new WeakMap<object, string>();

/** How far below a copy the texts of its members are recorded: a list of children and each child, or an answer object, its lists and their members. */
const RECORDED_LEVELS = 2;

const membersOf = (value: object): unknown[] => (Array.isArray(value) ? (value as unknown[]) : Object.values(value));

const record = (value: unknown, text: string, levels: number): void => {
  if (typeof value !== 'object' || value === null) return;
  recorded.set(value, text);
  if (levels === 0) return;
  for (const member of membersOf(value)) if (typeof member === 'object' && member !== null) record(member, JSON.stringify(member), levels - 1);
};

/** A deep-frozen copy of a JSON value (through its text), whose text and members' texts jsonText reuses. */
export const frozenJsonCopy = <T>(value: T): T => {
  const text = JSON.stringify(value);
  const copy = deepFrozen(JSON.parse(text) as T);
  record(copy, text, RECORDED_LEVELS);
  return copy;
};

/** How JSON.stringify writes a value found under `key`: in a holder, so that a toJSON method is passed its key. */
const underKey = (key: string, value: unknown): string | undefined => {
  const text = JSON.stringify({ [key]: value });
  return text === '{}' ? undefined : text.slice(JSON.stringify(key).length + 2, -1);
};

/** A list, or an object made by a literal or JSON.parse, without a toJSON method: what jsonText writes itself. */
const walkable = (value: object): boolean => {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return true;
  return isPlainObject(value) && !(JSON as { isRawJSON?: (v: unknown) => boolean }).isRawJSON?.(value);
};

/**
 * The text JSON.stringify writes for a value, with the recorded text of the frozen copies in it reused. Only
 * the first `levels` levels of plain lists and objects are walked here (a response, its lists, their members);
 * JSON.stringify writes everything else (deeper levels, boxed primitives, dates, objects with a toJSON method,
 * which get their key as JSON.stringify would pass it).
 */
export const jsonText = (value: unknown, levels: number = RECORDED_LEVELS, key = ''): string | undefined => {
  if (typeof value === 'object' && value !== null) {
    const known = recorded.get(value);
    if (known !== undefined) return known;
    if (levels > 0 && walkable(value)) return Array.isArray(value) ? listText(value as unknown[], levels) : objectText(value, levels);
  }
  return underKey(key, value);
};

const listText = (list: readonly unknown[], levels: number): string => {
  const items: string[] = [];
  // A hole is read as undefined, and written null as JSON.stringify writes it.
  for (let index = 0; index < list.length; index += 1) items.push(jsonText(list[index], levels - 1, String(index)) ?? 'null');
  return `[${items.join(',')}]`;
};

const objectText = (object: object, levels: number): string => {
  const fields: string[] = [];
  for (const key of Object.keys(object)) {
    const text = jsonText((object as Record<string, unknown>)[key], levels - 1, key);
    if (text !== undefined) fields.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${fields.join(',')}}`;
};
