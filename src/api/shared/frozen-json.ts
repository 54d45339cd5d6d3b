/**
 * Frozen answers that remember their JSON text. A kept render is handed to every sync with an equal input and
 * sent in the response each time; V8 writes a frozen object's JSON about twice as slowly as a plain one's, and
 * the text never changes. So the text of a frozen copy and of its members is recorded once, when the copy is
 * made, and `jsonText` reuses it where the copy's objects appear in a response.
 */
import { deepFrozen } from './memo.js';

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

/**
 * The text JSON.stringify writes for a value, with the recorded text of the frozen copies in it reused. Only
 * the first `levels` levels are walked here (a response, its lists, their members); below them, and for any
 * object with a toJSON method, JSON.stringify writes the rest.
 */
export const jsonText = (value: unknown, levels: number = RECORDED_LEVELS): string | undefined => {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const known = recorded.get(value);
  if (known !== undefined) return known;
  if (levels === 0 || typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
  if (Array.isArray(value)) {
    const items: string[] = [];
    // for-of reads a hole as undefined, written null as JSON.stringify writes it.
    for (const item of value as unknown[]) items.push(jsonText(item, levels - 1) ?? 'null');
    return `[${items.join(',')}]`;
  }
  const fields: string[] = [];
  for (const key of Object.keys(value)) {
    const text = jsonText((value as Record<string, unknown>)[key], levels - 1);
    if (text !== undefined) fields.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${fields.join(',')}}`;
};
