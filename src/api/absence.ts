// What list reads prove about an instance that is not in them (README "Security and money
// guarantees"): one read that leaves an instance out is not proof that it is gone (lists answer
// late, pages shift, a replica lags). Only two successful reads in a row that both leave it out
// are. Entry sync and the "instance gone" hook both judge by this one rule.

export class AbsenceRule {
  private missedOnce = new Set<number>();

  /**
   * One successful read left `missing` out (ids that something still holds a record for): the
   * ids the read before left out as well, i.e. those now confirmed gone. An id listed again
   * starts over.
   */
  read(missing: Iterable<number>): number[] {
    const now = new Set(missing);
    const gone = [...now].filter((id) => this.missedOnce.has(id));
    this.missedOnce = now;
    return gone;
  }

  /** The reads seen so far prove nothing any more (another connection or account, signed out). */
  reset(): void {
    this.missedOnce.clear();
  }
}
