"""botocore's adaptive retry mode, driven by its own classes with a fake clock, through a fixed
sequence of sends and responses (throttled or not): the golden file the lab's limiter is checked
against step by step (crates/retry-engine/tests/adaptive.rs).

Usage: tests/clients/.venv/bin/python tests/clients/adaptive_botocore.py [--write]
Without --write, checks that tests/golden/adaptive_botocore.csv is what botocore gives now.
"""

import os
import random
import sys

from botocore.exceptions import CapacityNotAvailableError
from botocore.retries import adaptive, bucket, throttling

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden", "adaptive_botocore.csv")


class FakeClock:
    """Whole microseconds, but for the exact end of a wait for a token."""

    def __init__(self):
        self.us = 0
        self.extra = 0.0

    def current_time(self):
        return self.us / 1e6 + self.extra

    def sleep(self, amount):
        raise AssertionError("no sleeping")


class Detector:
    """Says whether the response is throttling, as the sequence says."""

    def is_throttling_error(self, throttled=False, **kwargs):
        return throttled


def run():
    """The sequence through botocore's limiter. A send that finds no token does not block: the
    wait botocore would sleep is recorded (in whole microseconds, rounded up, as the lab waits),
    the clock moves to its exact end and the send takes its token then, as one client thread that waits
    does; nothing else happens while it waits."""
    clock = FakeClock()
    cubic = throttling.CubicCalculator(starting_max_rate=0, start_time=clock.current_time())
    tokens = bucket.TokenBucket(max_rate=1, clock=clock)
    limiter = adaptive.ClientRateLimiter(
        rate_adjustor=cubic,
        rate_clocker=adaptive.RateClocker(clock),
        token_bucket=tokens,
        throttling_detector=Detector(),
        clock=clock,
    )
    rng = random.Random(20261203)
    rows = ["t_us,event,delay_us,fill_rate,measured_rate,capacity"]
    t = 0
    for _ in range(600):
        t += rng.randrange(0, 120_000)
        heavy = 10e6 <= t < 20e6 or 40e6 <= t < 45e6
        kind = rng.choice(["send", "send", "response"])
        clock.us, clock.extra = t, 0.0
        delay = 0
        if kind == "send":
            if limiter._enabled:
                try:
                    tokens.acquire(block=False)
                except CapacityNotAvailableError:
                    # The token is there after exactly `wait`; the lab resumes the send at the
                    # next whole microsecond.
                    wait = tokens._sleep_amount(1)
                    delay = int(-(-wait * 1e6 // 1))
                    # As botocore's own loop: wait, refill, and wait again for what rounding
                    # left short.
                    clock.extra = wait
                    while True:
                        try:
                            tokens.acquire(block=False)
                            break
                        except CapacityNotAvailableError:
                            clock.extra += tokens._sleep_amount(1)
                    t += delay
        else:
            throttled = rng.random() < (0.6 if heavy else 0.03)
            kind = "throttle" if throttled else "ok"
            limiter.on_receiving_response(throttled=throttled)
        rows.append(f"{t - delay},{kind},{delay},{tokens.max_rate!r},{limiter._rate_clocker.measured_rate!r},{tokens.available_capacity!r}")
    return rows


def main():
    text = "\n".join(run()) + "\n"
    if "--write" in sys.argv:
        with open(GOLDEN, "w") as f:
            f.write(text)
        print(f"wrote {GOLDEN}")
        return
    with open(GOLDEN) as f:
        want = f.read()
    if want != text:
        print("FAIL tests/golden/adaptive_botocore.csv is not what botocore 1.44.8 gives: rewrite it with --write")
        sys.exit(1)
    rows = text.count("\n") - 1
    throttles = text.count(",throttle,")
    waits = sum(1 for line in text.splitlines()[1:] if line.split(",")[2] != "0")
    print(f"ok   botocore-adaptive: {rows} steps ({throttles} throttling responses, {waits} sends that waited) are botocore's own")


if __name__ == "__main__":
    main()
