#!/usr/bin/env python3
# agent-hosted.py AGENT_TEST <REQUESTS - run the test build of the agent on
# this host over a socketpair ("vmtax-agent-test --fd N", see
# guest-image/agent/agent.c) and speak docs/protocol.md to it: each line of
# REQUESTS is a request object without v and id; each reply is printed as one
# JSON line, in order.  The first line printed is the agent's "ready".  At
# the end the socket is closed and the agent must exit 0 (exit 1 otherwise).
import json
import os
import socket
import struct
import subprocess
import sys


def send(sock, obj):
    body = json.dumps(obj, separators=(",", ":")).encode()
    sock.sendall(b"VMTX" + struct.pack(">I", len(body)) + body)


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("the agent closed its end")
        buf += chunk
    return buf


def recv(sock):
    hdr = recv_exact(sock, 8)
    if hdr[:4] != b"VMTX":
        raise ValueError("bad magic %r" % hdr[:4])
    (n,) = struct.unpack(">I", hdr[4:])
    return json.loads(recv_exact(sock, n))


def main():
    ours, theirs = socket.socketpair()
    ours.settimeout(60)
    agent = subprocess.Popen([sys.argv[1], "--fd", str(theirs.fileno())],
                             pass_fds=[theirs.fileno()],
                             stderr=open("agent.log", "w"))
    theirs.close()
    print(json.dumps(recv(ours)), flush=True)
    next_id = 1
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        req.update(v=1, id=next_id)
        send(ours, req)
        while True:
            msg = recv(ours)
            if msg.get("id") == next_id and msg.get("type") == "reply":
                break
        print(json.dumps(msg), flush=True)
        next_id += 1
    ours.close()
    rc = agent.wait(timeout=30)
    if rc != 0:
        print("agent exited with status %d" % rc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
