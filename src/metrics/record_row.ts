/**
 * One record's metric values by slot: a `Float64Array` indexed by the metric's place in its kind's computation order
 * (NaN: no value), a side array for the list-valued metrics, and presence bits. A run's accumulator keeps one row per
 * kind of record (succeeded, failed) and refills it for each record, so recording a request allocates no object of
 * ~30 boxed numbers; consumers read by slot (their tag → slot resolved once per layout) or through `get`.
 *
 * A row is valid until its accumulator measures the next record: a sink reads it during its `measured` call and
 * copies (`toObject`) what it keeps.
 */
import type { RecordMetrics, RecordValue } from "./metric_def.ts";

/** The slots of one kind of record: the record metrics' tags in computation order. */
export class RowLayout {
  readonly tags: readonly string[];
  /** Tags that some metric reads from the values computed before it (its `requires` and `reads`). */
  readonly inputs: ReadonlySet<string>;
  readonly #slots: ReadonlyMap<string, number>;

  constructor(tags: readonly string[], inputs: Iterable<string>) {
    this.tags = tags;
    this.#slots = new Map(tags.map((tag, i) => [tag, i]));
    this.inputs = new Set([...inputs].filter((tag) => this.#slots.has(tag)));
  }

  get size(): number {
    return this.tags.length;
  }

  /** The slot of `tag`, or -1 when this kind of record has no such metric. */
  slotOf(tag: string): number {
    return this.#slots.get(tag) ?? -1;
  }
}

export class RecordRow {
  readonly layout: RowLayout;
  /** Each slot's number; NaN where the metric has no value or its value is a list. */
  readonly nums: Float64Array;
  /** The list values by slot; undefined where the slot holds none. */
  readonly lists: (readonly number[] | undefined)[];
  /** Bit `i & 31` of word `i >> 5` is set where slot `i` has a value: records of one shape have equal words. */
  readonly present: Uint32Array;
  /**
   * The values that metrics read from those computed before them, by tag (the layout's `inputs`; the others are
   * left undefined): what a metric's `compute` and the goodput SLOs are given.
   */
  readonly view: RecordMetrics;

  constructor(layout: RowLayout) {
    this.layout = layout;
    this.nums = new Float64Array(layout.size).fill(NaN);
    this.lists = new Array<readonly number[] | undefined>(layout.size).fill(undefined);
    this.present = new Uint32Array(Math.max(1, Math.ceil(layout.size / 32)));
    this.view = Object.fromEntries([...layout.inputs].map((tag) => [tag, undefined])) as unknown as RecordMetrics;
  }

  /** A row of its own layout holding `values` (keys in their order): for callers that have values keyed by tag. */
  static of(values: Readonly<Record<string, RecordValue>>): RecordRow {
    const tags = Object.keys(values);
    const row = new RecordRow(new RowLayout(tags, []));
    for (let i = 0; i < tags.length; i++) row.set(i, values[tags[i]]);
    return row;
  }

  /** Sets slot `slot` to `v` (undefined, or a non-finite number: no value). */
  set(slot: number, v: RecordValue | undefined): void {
    const bit = 1 << (slot & 31);
    if (v === undefined || (typeof v === "number" && !(v === v && Math.abs(v) !== Infinity))) {
      this.nums[slot] = NaN;
      this.lists[slot] = undefined;
      this.present[slot >>> 5] &= ~bit;
    } else {
      this.nums[slot] = typeof v === "number" ? v : NaN;
      this.lists[slot] = typeof v === "number" ? undefined : v;
      this.present[slot >>> 5] |= bit;
    }
  }

  /** Slot `slot`'s value, undefined where it has none. */
  value(slot: number): RecordValue | undefined {
    const list = this.lists[slot];
    if (list !== undefined) return list;
    const n = this.nums[slot];
    return n === n ? n : undefined;
  }

  /** The value of the metric `tag`, undefined where it has none (or the layout has no such metric). */
  get(tag: string): RecordValue | undefined {
    const slot = this.layout.slotOf(tag);
    return slot < 0 ? undefined : this.value(slot);
  }

  /** A copy of the values as an object keyed by tag, in computation order, absent metrics left out. */
  toObject(): Record<string, RecordValue> {
    const out: Record<string, RecordValue> = {};
    const tags = this.layout.tags;
    for (let i = 0; i < tags.length; i++) {
      const v = this.value(i);
      if (v !== undefined) out[tags[i]] = typeof v === "number" ? v : [...v];
    }
    return out;
  }
}
