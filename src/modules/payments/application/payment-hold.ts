/** Something an accepted payment holds until it ends, told how it ended. */
export interface PaymentHold {
  /** Nothing reached the chain: the payment was released or refused before landing. */
  release(): Promise<void>;
  /** It landed: `moved` when the funds moved, false when it landed with an error (its fee was paid all the same). */
  landed(moved: boolean): Promise<void>;
}
