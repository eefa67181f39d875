"""Python's zoneinfo (an implementation of its own of the same TZif files and TZ strings) as the
reference for screentime's Zone: for each zone named on standard input, one line per change of
its UTC offset between FROM and TO (seconds since the epoch), found by looking every STEP seconds
and then to the second: "zone moment offset". The first line of each zone is its offset at FROM."""
import sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

start, end, step = (int(a) for a in sys.argv[1:4])

def offset(zone, t):
    return int(datetime.fromtimestamp(t, timezone.utc).astimezone(zone).utcoffset().total_seconds())

out = []
for name in sys.stdin.read().split():
    zone = ZoneInfo(name)
    before = offset(zone, start)
    out.append("%s %d %d" % (name, start, before))
    t = start
    while t < end:
        nxt = min(t + step, end)
        after = offset(zone, nxt)
        if after != before:
            low, high = t, nxt          # offset(low) == before, offset(high) == after
            while high - low > 1:
                mid = (low + high) // 2
                if offset(zone, mid) == before:
                    low = mid
                else:
                    high = mid
            out.append("%s %d %d" % (name, high, after))
        t, before = nxt, after
sys.stdout.write("\n".join(out) + "\n")
