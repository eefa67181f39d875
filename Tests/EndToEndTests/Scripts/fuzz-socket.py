#!/usr/bin/python3
"""Sends FRAMES malformed, truncated, oversized and random frames to a control socket over many
connections. Each line must get exactly one reply, up to and including an oversized one, after
which the daemon closes. Prints: connections, replies, connections whose replies were not exactly
those. Usage: fuzz-socket.py SOCKET FRAMES SEED"""
import json, random, socket, sys

path, frames, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
valid = [b'{"v": 1, "command": "status"}', b'{"v": 1, "command": "redeem", "minutes": 5}',
         b'{"v": 1, "command": "hook_event", "event": "{\\"event\\": \\"input\\"}"}']

MAX = 65536

def frame():
    kind = rng.randrange(8)
    if kind == 0: return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))) + b"\n"
    if kind == 1: return rng.choice(valid)[: rng.randrange(1, 30)] + b"\n"                 # truncated
    if kind == 2: return b'{"v": 1, "command": "status", "pad": "' + b"x" * rng.randrange(60000, 70000) + b'"}\n'
    if kind == 3: return json.dumps({"v": rng.choice([0, 1, 2, -1, 10**12, "1", None]), "command": rng.choice(["status", "redeem", "adjust", "x", 7, None])}).encode() + b"\n"
    if kind == 4: return b"[" * rng.randrange(1, 5000) + b"\n"                                   # deep nesting
    if kind == 5: return b'{"v": 1, "command": "adjust", "points": ' + str(rng.randrange(-10**20, 10**20)).encode() + b', "reason": "x"}\n'
    if kind == 6: return b"\n" * rng.randrange(1, 20)
    return rng.choice(valid) + b"\n"

connections = replies = sent = wrong = 0
while sent < frames:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(path)
    connections += 1
    expected = 0
    try:
        for _ in range(rng.randrange(1, 200)):
            if sent >= frames: break
            f = frame()
            sent += 1
            s.sendall(f)
            if len(f) > MAX:        # answered with an error, then closed
                expected += 1
                break
            expected += f.count(b"\n")
        s.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass
    data = b""
    try:
        while True:
            chunk = s.recv(1 << 16)
            if not chunk: break
            data += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    s.close()
    got = data.count(b"\n")
    replies += got
    if got != expected: wrong += 1
print(connections, replies, wrong)
