#!/usr/bin/env python3
# agent-hello.py SOCKET [TIMEOUT_S [CMD...]]: connect to a guest agent's
# channel socket (docs/protocol.md framing: "VMTX", u32 big-endian length,
# JSON), send hello until a reply arrives (the guest may still be booting),
# print the reply's result as JSON.  Then each CMD is sent as a "run" request
# (with_output, no counters, 600 s timeout) on the same connection and its
# reply printed as one compact JSON line ('{"' at the start of the line; the
# hello's JSON is indented).  Exit 1 on timeout.
import json, socket, struct, sys, time

def frame(obj):
    body = json.dumps(obj).encode()
    return b"VMTX" + struct.pack(">I", len(body)) + body

def read_frames(s, buf):
    while len(buf) >= 8:
        if buf[:4] != b"VMTX":
            i = buf.find(b"VMTX", 1)
            buf = buf[i:] if i > 0 else b""
            continue
        n = struct.unpack(">I", buf[4:8])[0]
        if len(buf) < 8 + n:
            break
        yield json.loads(buf[8:8 + n]), None
        buf = buf[8 + n:]
    yield None, buf

def run_all(s, buf, cmds):
    for i, cmd in enumerate(cmds):
        rid = 100 + i
        s.sendall(frame({"v": 1, "id": rid, "type": "run", "cmd": cmd,
                         "with_output": True, "counters": False,
                         "timeout_s": 600}))
        s.settimeout(660)
        reply = None
        while reply is None:
            data = s.recv(65536)
            if not data:
                print("agent-hello: channel closed during '%s'" % cmd,
                      file=sys.stderr)
                return 1
            buf += data
            for msg, rest in read_frames(s, buf):
                if msg is None:
                    buf = rest
                elif msg.get("type") == "reply" and msg.get("id") == rid:
                    reply = msg
        print(json.dumps(reply, sort_keys=True))
        sys.stdout.flush()
    return 0

def main():
    path, limit = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 300
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            s.sendall(frame({"v": 1, "id": 1, "type": "hello"}))
            s.settimeout(10)
            buf = b""
            end = time.monotonic() + 10
            while time.monotonic() < end:
                data = s.recv(65536)
                if not data:
                    break
                buf += data
                for msg, rest in read_frames(s, buf):
                    if msg is None:
                        buf = rest
                    elif msg.get("type") == "reply" and msg.get("id") == 1:
                        print(json.dumps(msg, indent=1, sort_keys=True))
                        sys.stdout.flush()
                        return run_all(s, b"", sys.argv[3:])
        except (OSError, socket.timeout):
            pass
        finally:
            s.close()
        time.sleep(2)
    print("agent-hello: no reply on %s in %.0f s" % (path, limit), file=sys.stderr)
    return 1

sys.exit(main())
