#!/usr/bin/env python3
"""Writes policies/demo-day.jsonl: one afternoon of a child's screen time, for `make run`.

GCompris for 40 honest minutes, a copied GCompris in the home folder (earns nothing), a walk away
from TuxMath, a parent's redemption of 20 minutes, and SuperTuxKart played until they run out.
Deterministic: the same file every run.
"""
import json, random
from datetime import datetime, timedelta, timezone

rng = random.Random(7)
tz = timezone(timedelta(hours=1))
t0 = datetime(2026, 11, 23, 14, 0, 0, tzinfo=tz)
out = []

def at(sec):
    return (t0 + timedelta(seconds=sec)).isoformat(timespec="microseconds").replace(".000000", "")

def ev(sec, kind, **fields):
    out.append((sec, {"at": at(sec), "event": kind, **fields}))

def proc(sec, pid, exe, **kw):
    ev(sec, "process_started", pid=pid, exe=exe, uid=1000, comm=exe.rsplit("/", 1)[-1][:15],
       cmdline=[exe], start_ticks=100000 + pid, **kw)

def typing(start, end, lo=4, hi=40):
    s = start + rng.uniform(0, 3)
    while s < end:
        ev(s, "input", count=rng.randint(1, 30))
        s += rng.uniform(lo, hi)

# 14:00 GCompris, 40 minutes of real work.
proc(0, 4242, "/usr/bin/gcompris-qt")
ev(0, "focus_changed", pid=4242, app_id="gcompris-qt", title="GCompris")
typing(0, 2400)
ev(2400, "process_exited", pid=4242)
# 14:45 a copy of GCompris in the home folder: looks the same, earns nothing.
proc(2700, 5000, "/home/kid/gcompris-qt")
ev(2700, "focus_changed", pid=5000, app_id="gcompris-qt", title="GCompris")
typing(2700, 3600)
ev(3600, "process_exited", pid=5000)
# 15:10 TuxMath for 15 minutes, then the child walks away for 20.
proc(4200, 4300, "/usr/games/tuxmath")
ev(4200, "focus_changed", pid=4300, app_id="tuxmath", title="TuxMath")
typing(4200, 5100)
ev(6300, "process_exited", pid=4300)
# 15:50 a parent redeems 20 minutes; 16:00 SuperTuxKart until they run out.
ev(6600, "redeem", minutes=20, by="mom")
proc(7200, 5151, "/usr/games/supertuxkart")
ev(7200, "focus_changed", pid=5151, app_id="supertuxkart", title="SuperTuxKart")
typing(7200, 8420, 1, 10)
ev(8420, "process_exited", pid=5151)
ev(8700, "tick")

out.sort(key=lambda p: p[0])
with open("policies/demo-day.jsonl", "w") as f:
    for _, e in out:
        f.write(json.dumps(e) + "\n")
