/**
 * A named table of extension entries: endpoint types, dataset loaders, load strategies, exporters. Each extension
 * point declares its entries once, in one list; option choices, `--help` text and "unknown name" errors are derived
 * from that list, never copied by hand (AIPerf's plugin registries, without the plugin loading).
 *
 * A registry is built once from a constant list and never changes afterwards.
 */
import { didYouMeanHint } from "./did_you_mean.ts";

/** What every registered entry carries. */
export interface RegistryEntry {
  /** The name users type (`--endpoint-type chat`); unique within the registry. */
  readonly name: string;
  /** One sentence for `--help` and listings. */
  readonly description: string;
}

/** Options for {@link Registry}. */
export interface RegistryOptions {
  /**
   * Names users may know from AIPerf that are recognised but not built, each with the reason: asking for one is an
   * error that says so, never an "unknown name". @default {}
   */
  readonly unsupported?: Readonly<Record<string, string>>;
}

/** Thrown by {@link Registry.get} for an unknown or unsupported name; the message names the choices. */
export class RegistryLookupError extends RangeError {
  readonly kind: string;
  readonly requested: string;
  constructor(kind: string, requested: string, message: string) {
    super(message);
    this.name = "RegistryLookupError";
    this.kind = kind;
    this.requested = requested;
  }
}

export class Registry<T extends RegistryEntry> {
  /** What the entries are, in messages: "endpoint type", "dataset type". */
  readonly kind: string;
  readonly #entries: readonly T[];
  readonly #byName: ReadonlyMap<string, T>;
  readonly #unsupported: Readonly<Record<string, string>>;

  /** @throws {RangeError} when two entries share a name, or a name is both registered and unsupported. */
  constructor(kind: string, entries: readonly T[], options: RegistryOptions = {}) {
    this.kind = kind;
    const byName = new Map<string, T>();
    for (const entry of entries) {
      if (byName.has(entry.name)) throw new RangeError(`${kind} '${entry.name}' is registered twice`);
      byName.set(entry.name, entry);
    }
    const unsupported = options.unsupported ?? {};
    for (const name of Object.keys(unsupported)) {
      if (byName.has(name)) throw new RangeError(`${kind} '${name}' is both registered and listed as unsupported`);
    }
    this.#entries = Object.freeze([...entries]);
    this.#byName = byName;
    this.#unsupported = Object.freeze({ ...unsupported });
  }

  /** Registered names, in declaration order. */
  names(): readonly string[] {
    return this.#entries.map((e) => e.name);
  }

  /** Registered entries, in declaration order. */
  entries(): readonly T[] {
    return this.#entries;
  }

  /** Recognised-but-unsupported names and why. */
  unsupported(): Readonly<Record<string, string>> {
    return this.#unsupported;
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** The entry, or undefined. */
  find(name: string): T | undefined {
    return this.#byName.get(name);
  }

  /**
   * The entry named `name`.
   * @throws {RegistryLookupError} naming the registered choices (with a "did you mean" hint), or saying that the
   * name is recognised but not supported, and why.
   */
  get(name: string): T {
    const entry = this.#byName.get(name);
    if (entry !== undefined) return entry;
    throw new RegistryLookupError(this.kind, name, this.describeUnknown(name));
  }

  /** The message {@link get} throws for `name`. */
  describeUnknown(name: string): string {
    const reason = Object.hasOwn(this.#unsupported, name) ? this.#unsupported[name] : undefined;
    if (reason !== undefined) return `${this.kind} '${name}' is not supported yet: ${reason}`;
    const hint = didYouMeanHint(name, this.names());
    return `unknown ${this.kind} '${name}';${hint} use one of: ${this.names().join(", ")}`;
  }
}
