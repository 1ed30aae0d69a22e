/**
 * A set whose members keep their own place in it, for sets that gain and lose a member on every request (the
 * requests in flight, the connections in use). A `Set` re-allocated its table as members came and went: ~220 B of
 * garbage per request (V8 sampling heap profile), and garbage is what sets how often the young-generation collector
 * pauses the thread that stamps socket reads. Adding and removing here allocate nothing. A member belongs to one
 * such set at a time.
 */

/** A member: its index in the set it belongs to, −1 when in none. */
export interface Indexed {
  setIndex: number;
}

export class IndexedSet<T extends Indexed> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  add(item: T): void {
    if (item.setIndex >= 0) return;
    item.setIndex = this.#items.length;
    this.#items.push(item);
  }

  /** Removes `item` (the last member takes its place); nothing when it is not a member. */
  delete(item: T): void {
    const items = this.#items;
    const i = item.setIndex;
    if (i < 0 || items[i] !== item) return;
    const last = items.pop()!;
    if (last !== item) {
      items[i] = last;
      last.setIndex = i;
    }
    item.setIndex = -1;
  }

  has(item: T): boolean {
    return item.setIndex >= 0 && this.#items[item.setIndex] === item;
  }

  /** The members now, as a copy (safe to change the set while going through it). */
  members(): T[] {
    return this.#items.slice();
  }
}
