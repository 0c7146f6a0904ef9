// One time limit for a whole run (--deadline), on top of each request's own timeout: on a sick
// cluster the report must still arrive, with what could not be fetched in time marked not visible.
export class Deadline {
  readonly at: number;
  constructor(
    readonly ms: number,
    now = Date.now(),
  ) {
    this.at = now + ms;
  }
  remaining(): number {
    return Math.max(0, this.at - Date.now());
  }
  passed(): boolean {
    return this.remaining() === 0;
  }
  text(): string {
    return this.ms % 1000 === 0 ? `${this.ms / 1000}s` : `${this.ms}ms`;
  }
}
