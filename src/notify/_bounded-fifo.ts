/**
 * A first-in first-out list with a fixed capacity, as a ring that grows by doubling up to it:
 * push and shift are O(1), and an idle list holds a few slots, not `capacity`.
 *
 * @module
 */

/** A bounded FIFO. */
export class BoundedFifo<T> {
  readonly #capacity: number;
  #slots: (T | undefined)[] = new Array(8);
  #head = 0;
  #size = 0;

  /**
   * Creates an empty list.
   *
   * @param capacity The most items held: a positive integer.
   */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** How many items wait. */
  get size(): number {
    return this.#size;
  }

  /**
   * Appends an item unless the list is full.
   *
   * @param item The item.
   * @returns Whether it was appended.
   */
  push(item: T): boolean {
    if (this.#size >= this.#capacity) return false;
    if (this.#size === this.#slots.length) this.#grow();
    this.#slots[(this.#head + this.#size) % this.#slots.length] = item;
    this.#size++;
    return true;
  }

  /**
   * Takes the oldest item.
   *
   * @returns It, or `undefined` when the list is empty.
   */
  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    const item = this.#slots[this.#head];
    this.#slots[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#slots.length;
    this.#size--;
    return item;
  }

  /** Drops every item. */
  clear(): void {
    this.#slots = new Array(8);
    this.#head = 0;
    this.#size = 0;
  }

  #grow(): void {
    const slots = new Array<T | undefined>(Math.min(this.#slots.length * 2, this.#capacity));
    for (let i = 0; i < this.#size; i++) slots[i] = this.#slots[(this.#head + i) % this.#slots.length];
    this.#slots = slots;
    this.#head = 0;
  }
}
