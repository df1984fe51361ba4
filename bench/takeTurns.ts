import { nowMicros } from "./timing.js";

interface Gate {
  open: () => void;
  opened: Promise<void>;
}

function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/**
 * Lets several agent runs take turns, one step each, and clocks each run's own turns. On a
 * shared VM the machine's speed drifts by 10-20% from one second to the next; runs timed one
 * after another compare those drifts more than the runs, while turns of a few milliseconds
 * see the same machine. Only one run is ever busy: the others wait at a gate.
 */
export class TakeTurns {
  /** Microseconds each participant spent in its turns. */
  readonly busy: number[];
  private readonly gates: Gate[];
  private readonly done: boolean[];
  private turnStarted = 0;

  constructor(participants: number) {
    this.busy = new Array<number>(participants).fill(0);
    this.done = new Array<boolean>(participants).fill(false);
    this.gates = Array.from({ length: participants }, gate);
    this.gates[0]!.open();
  }

  /** Runs `work` as participant `me`; `work` calls `handOver(me)` at the end of each step. */
  async run(me: number, work: () => Promise<unknown>): Promise<void> {
    await this.gates[me]!.opened;
    this.turnStarted = nowMicros();
    try {
      await work();
    } finally {
      this.busy[me]! += nowMicros() - this.turnStarted;
      this.done[me] = true;
      this.openNext(me);
    }
  }

  /** Ends `me`'s turn; resolves when its next turn begins. */
  async handOver(me: number): Promise<void> {
    this.busy[me]! += nowMicros() - this.turnStarted;
    const mine = (this.gates[me] = gate());
    this.openNext(me);
    await mine.opened;
    this.turnStarted = nowMicros();
  }

  /** Opens the gate of the next participant still running after `me`, `me` itself if it is the last. */
  private openNext(me: number): void {
    const n = this.gates.length;
    for (let k = 1; k <= n; k++) {
      const next = (me + k) % n;
      if (!this.done[next]) {
        this.gates[next]!.open();
        return;
      }
    }
  }
}
