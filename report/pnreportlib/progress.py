"""Progress of long report work on stderr, as fio shows it: done/total,
elapsed and an ETA from the mean time per item so far.  Quiet for short work
(fewer than MIN_ITEMS items); at most one line a second, plus the last."""
import sys
import time

MIN_ITEMS = 4


class Progress:
    def __init__(self, what, total, stream=None, every_s=1.0, clock=time.monotonic):
        self.what, self.total, self.stream = what, total, stream or sys.stderr
        self.every_s, self.clock = every_s, clock
        self.t0 = clock()
        self.last = None
        self.done = 0

    def step(self, n=1):
        """One more item done; print a line when a second passed since the last."""
        self.done += n
        if self.total < MIN_ITEMS:
            return
        now = self.clock()
        final = self.done >= self.total
        if not final and self.last is not None and now - self.last < self.every_s:
            return
        self.last = now
        el = now - self.t0
        eta = el / self.done * (self.total - self.done) if self.done else 0
        tail = f"done in {el:.1f} s" if final else f"{el:.1f} s, ETA {eta:.0f} s"
        print(f"pnreport: {self.what} {self.done}/{self.total}, {tail}", file=self.stream, flush=True)
