/**
 * Randomized property test of parseJsonWithUniqueKeys: random JSON trees are written out with random
 * whitespace and random (but equivalent) escapes, sometimes with one object given a repeated key spelled
 * differently; the verdict must match what the generator did. Seeded, so a failure names a
 * reproducible case.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom, type SeededRandom } from '../testing/fuzz-values';
import { parseJsonWithUniqueKeys } from './index';

/** A JSON tree whose objects keep their members in order, so a member can be repeated before writing. */
type Tree = { kind: 'leaf'; text: string } | { kind: 'array'; items: Tree[] } | { kind: 'object'; members: [string, Tree][] };

// Keys and strings full of characters that matter to a scanner: quotes, backslashes, braces, colons.
const keyPool = ['a', 'b', 'amount', 'value', '__proto__', '', 'A', '1', '01', 'a:b', '"', '\\', '{', '}', '[', ']', ',', ':', '":', '\\"', 'é', '😀', '\n', '\u0000', 'a b'];
const stringPool = [...keyPool, 'https://pay.example.com:443/x', 'eip155:8453', '{"a":1,"a":2}', '\\\\\\"', '\ud800', ''];
const numbers = ['0', '-0', '1', '-12', '3.25', '1e3', '1E+2', '-4.5e-7', '123456789012345678901234567890'];

/** A random tree; `roll` 5 and 6 make an object, so a caller can ask for one with `minRoll` 5. */
function generate(random: SeededRandom, depth: number, objects: Tree[], minRoll = 0): Tree {
  const roll = depth >= 5 ? random.int(4) : minRoll + random.int(7 - minRoll);
  if (roll === 0) return { kind: 'leaf', text: random.pick(['null', 'true', 'false']) };
  if (roll === 1) return { kind: 'leaf', text: random.pick(numbers) };
  if (roll <= 3) return { kind: 'leaf', text: writeString(random, random.pick(stringPool)) };
  if (roll === 4) return { kind: 'array', items: Array.from({ length: random.int(4) }, () => generate(random, depth + 1, objects)) };
  const keys = [...new Set(Array.from({ length: random.int(6) }, () => random.pick(keyPool)))];
  const object: Tree = { kind: 'object', members: keys.map((key) => [key, generate(random, depth + 1, objects)]) };
  objects.push(object);
  return object;
}

/** A JSON string literal for `text`, each character written plainly or as one of its escapes. */
function writeString(random: SeededRandom, text: string): string {
  let out = '"';
  for (const unit of text.split('')) {
    const code = unit.charCodeAt(0);
    const mustEscape = unit === '"' || unit === '\\' || code < 0x20;
    if (mustEscape || random.next() < 0.2) {
      const hex = code.toString(16).padStart(4, '0');
      out += random.next() < 0.5 ? `\\u${random.next() < 0.5 ? hex : hex.toUpperCase()}` : (JSON.stringify(unit).slice(1, -1) || `\\u${hex}`);
    } else {
      out += unit === '/' && random.next() < 0.5 ? '\\/' : unit;
    }
  }
  return `${out}"`;
}

const space = (random: SeededRandom) => random.pick(['', '', '', ' ', '\n', '\t', '\r\n ']);

function write(random: SeededRandom, tree: Tree): string {
  if (tree.kind === 'leaf') return tree.text;
  if (tree.kind === 'array') return `[${space(random)}${tree.items.map((item) => write(random, item) + space(random)).join(`,${space(random)}`)}]`;
  const members = tree.members.map(([key, value]) => `${writeString(random, key)}${space(random)}:${space(random)}${write(random, value)}`);
  return `{${space(random)}${members.join(`${space(random)},${space(random)}`)}${space(random)}}`;
}

/** Repeats one key of a random object (or gives an empty one a key twice); returns that key. */
function injectDuplicate(random: SeededRandom, objects: Tree[]): string {
  const target = random.pick(objects) as Extract<Tree, { kind: 'object' }>;
  const key = target.members.length > 0 ? (random.pick(target.members)[0]) : random.pick(keyPool);
  if (target.members.length === 0) target.members.push([key, { kind: 'leaf', text: '0' }]);
  const at = 1 + random.int(target.members.length); // after the first spelling, anywhere
  target.members.splice(at, 0, [key, { kind: 'leaf', text: random.pick(numbers) }]);
  return key;
}

describe('parseJsonWithUniqueKeys on random JSON', () => {
  it('agrees with the generator on 3,000 random documents, half with one repeated key', () => {
    const seed = 20_240_611;
    const random = seededRandom(seed);
    let duplicatesInjected = 0;
    for (let round = 0; round < 3_000; round += 1) {
      const objects: Tree[] = [];
      const tree = generate(random, 0, objects, random.next() < 0.8 ? 5 : 0);
      const expectedKey = objects.length > 0 && random.next() < 0.5 ? injectDuplicate(random, objects) : undefined;
      const text = write(random, tree);
      const reference = JSON.parse(text) as unknown; // the generator only writes valid JSON
      const parsed = parseJsonWithUniqueKeys(text);
      const context = `seed ${seed}, round ${round}: ${text}`;
      if (expectedKey === undefined) {
        expect(parsed, context).toEqual({ ok: true, value: reference });
      } else {
        duplicatesInjected += 1;
        expect(parsed, context).toEqual({ ok: false, reason: 'duplicate_key', key: expectedKey });
      }
    }
    expect(duplicatesInjected).toBeGreaterThan(1_000);
  });
});
