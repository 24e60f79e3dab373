/**
 * Compile-time scopes: which names are bound where, and in which frame slot.
 *
 * A {@link Level} is one function level (the top level, a function body, or
 * a loop body that needs a fresh frame per iteration because closures may
 * capture it); it owns the slot numbering of its frames. A {@link Scope} is a
 * lexical block within a level. A filter's scope additionally makes the
 * current item's context entries visible, which can only be decided at run
 * time, so resolution reports those scopes as dynamic steps.
 *
 * @module
 */
import type { Code } from "./_compile_frame.ts";
import type { FeelValue } from "./values.ts";

/** A folded value: what a node always yields, the warnings it always emits. */
export interface Constant {
  readonly value: FeelValue;
  readonly warnings: readonly string[];
  /**
   * Built-in names the value depends on: if the input context defines one of
   * them it hides the built-in, and the unfolded code must run instead.
   */
  readonly guards: readonly string[];
}

/** The compiled form of a node. */
export interface Compiled {
  readonly run: Code;
  /** Present when the node's value is known at compile time. */
  readonly constant?: Constant;
}

/** One function level: its frames have `size` slots. */
export class Level {
  /** Slots allocated so far; final once compilation finishes. */
  size = 0;
  /** Nesting depth (0 for the top level). */
  readonly depth: number;

  /** Opens a level inside `parent`. */
  constructor(readonly parent: Level | null) {
    this.depth = parent === null ? 0 : parent.depth + 1;
  }

  /** Reserves a new slot. */
  alloc(): number {
    return this.size++;
  }
}

/** A name bound to a slot; `compiled` is set when its value is a constant. */
export interface Binding {
  readonly level: Level;
  readonly slot: number;
  compiled?: Compiled;
}

/** A lexical block. */
export class Scope {
  readonly #names = new Map<string, Binding>();

  /** Opens a block; `itemSlot` marks a filter whose item's entries are in scope. */
  constructor(
    readonly parent: Scope | null,
    readonly level: Level,
    readonly itemSlot?: number,
  ) {}

  /** Binds `name` to a fresh slot of this block's level. */
  bind(name: string): Binding {
    const b: Binding = { level: this.level, slot: this.level.alloc() };
    this.#names.set(name, b);
    return b;
  }

  /** Binds `name` to an existing slot (the filter item also answers to `item`). */
  alias(name: string, slot: number): void {
    this.#names.set(name, { level: this.level, slot });
  }

  /** The binding of `name` in this block only. */
  own(name: string): Binding | undefined {
    return this.#names.get(name);
  }
}

/** A filter item to consult before the static binding: `hops` frames out, in `slot`. */
export interface ItemStep {
  readonly hops: number;
  readonly slot: number;
}

/** Where a name reference leads. */
export interface Resolution {
  /** Filter items (innermost first) whose context entries may answer the name. */
  readonly items: readonly ItemStep[];
  /** The lexical binding, or undefined for an input variable or built-in. */
  readonly binding?: Binding;
  /** Frames between the reference and the binding's level. */
  readonly hops: number;
}

/** Resolves `name` as seen from `scope`. */
export function resolve(scope: Scope, name: string): Resolution {
  const items: ItemStep[] = [];
  const here = scope.level.depth;
  for (let s: Scope | null = scope; s !== null; s = s.parent) {
    // The item's own entries come first, even one named `item`.
    if (s.itemSlot !== undefined) items.push({ hops: here - s.level.depth, slot: s.itemSlot });
    const b = s.own(name);
    if (b !== undefined) return { items, binding: b, hops: here - b.level.depth };
  }
  return { items, hops: 0 };
}
