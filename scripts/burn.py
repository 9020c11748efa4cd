#!/usr/bin/env python3
"""A CPU burner with a duty cycle: busy DUTY (0..1) of every 100 ms on one
core, asleep the rest, until killed. docs/measurements/rating-pairs.md uses
it to hold a share of the machine between 5 % and 96 % (0.7 on one of two
cores: 35 %), which `yes` (100 % of a core) cannot."""
import sys
import time

duty = float(sys.argv[1]) if len(sys.argv) > 1 else 0.5
if not 0 < duty <= 1:
    sys.exit("usage: burn.py DUTY   (0 < DUTY <= 1)")
period = 0.1
while True:
    began = time.perf_counter()
    while time.perf_counter() - began < duty * period:
        pass
    time.sleep(max(0.0, period - (time.perf_counter() - began)))
