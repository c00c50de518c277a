#!/usr/bin/env python3
# Regenerate the hand-made seeds of tests/fuzz/corpus/ (run from the top of
# the tree).  Configs from configs/ and results from tests/fixtures/ are
# copied; the rest is written here.  Inputs found by fuzzing (crash-*,
# found-*) are added by hand and left alone.
import glob
import json
import os
import shutil
import struct

C = "tests/fuzz/corpus"


def put(target, name, data):
    os.makedirs(f"{C}/{target}", exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(f"{C}/{target}/{name}", "wb") as f:
        f.write(data)


# ---- config: run config, then "\n%%\n" workload file, "\n%%\n" --set lines
for p in glob.glob("configs/*.ini"):
    with open(p, "rb") as f:
        put("config", os.path.basename(p), f.read())
wl = "[workload]\nname = randwalk\n"
with open("configs/workloads/stream.ini") as f:
    stream = f.read()
put("config", "fuzz-workload.ini",
    "[run]\nname = fw\nrepeat = 2\n[matrix]\nwhere = guest\n"
    "host_thp = madvise\nguest_thp = never, always\nept = on, off\n"
    "backing = thp, hugetlb-2M\nexclude = *hugetlb*never*\n"
    "[workload]\nname = fuzz\n%%\n" + stream)
put("config", "sets.ini",
    "[run]\nname = s\n" + wl +
    "%%\n%%\nrun.repeat=5\nworkload.SEED=7\nguest.memory=4G\n"
    "matrix.paging=hw,shadow\n")
put("config", "bad-sets.ini",
    "[run]\nname = s\n" + wl + "%%\n%%\nrun.repeat=0\nbad-set\n")
put("config", "params.ini",
    wl + "SIZE_MIB = 64\nREADS = 1000\n[run]\nbaseline = "
    "guest/host-thp=never/guest-thp=never\n")
put("config", "npt.ini", "[matrix]\nnpt = off\nwhere = guest\n" + wl)
put("config", "bad-unknown-key.ini", "[run]\nrepat = 3\n" + wl)
put("config", "bad-int.ini", "[run]\nrepeat = lots\n" + wl)
put("config", "bad-range.ini", "[guest]\nvcpus = 100000\nmemory = 64M\n" + wl)
put("config", "bad-empty-axis.ini", "[matrix]\nhost_thp =\n" + wl)
put("config", "bad-dup-section.ini", "[run]\nname = a\n[run]\n" + wl)
put("config", "bad-name.ini", "[run]\nname = x\"<&y\n" + wl)
put("config", "bad-utf8.ini", b"[run]\nname = \xff\xfe\n")
put("config", "bad-paging-twice.ini",
    "[matrix]\npaging = hw\nept = on\n" + wl)
put("config", "bad-param.ini", wl + "NOPE = 1\n")
put("config", "bad-workload.ini",
    "[workload]\nname = fuzz\n%%\n[workload]\nrun = x\nmetric = regex\n"
    "[param.lower]\ndefault = 1\n[param.X]\nfoo = 2\n")
put("config", "bad-line.ini", "[run]\nname = " + "x" * 300 + "\n" + wl)
# any setting is an axis (docs/axes.md): lists in [guest], [host] knobs,
# guest knobs, parameters, quoted elements, --set lists
put("config", "axes-guest.ini",
    "[guest]\nvcpus = 1, 2, 4\nmemory = 1G, 2G\n"
    "cmdline = \"\", nogbpages, \"mem=4G,nokaslr\"\n"
    "kernel = /boot/vmlinuz-a, /opt/vmlinuz-b\nimage = tiny\n"
    "sysctl.vm.swappiness = 10, 60\nmm.ksm.run = 0\n"
    "[matrix]\nexclude = */vcpus=4/*\n"
    "[run]\nbaseline = guest/host-thp=always/guest-thp=always/"
    "kernel=vmlinuz-a/vcpus=2/memory=1G/cmdline=nogbpages/"
    "guest.sysctl.vm.swappiness=10\n" + wl)
put("config", "axes-host.ini",
    "[host]\nthp.defrag = always, never\nkvm.nx_huge_pages = N\n"
    "sysctl.vm.swappiness = 1, 100\n[matrix]\npaging = hw, shadow\n"
    "backing = thp, hugetlb-2M\n" + wl + "SIZE_MIB = 64, 128\n"
    "SEED = \"1,2\", \"\"\n")
put("config", "axes-sets.ini",
    "[run]\nname = s\n" + wl +
    "%%\n%%\nguest.vcpus=1,2\nworkload.SIZE_MIB=32, \"64\"\n"
    "host.thp.defrag=always,never\nguest.sysctl.vm.swappiness=10,60\n"
    "guest.cmdline=\"a,b\",c\n")
put("config", "bad-axes.ini",
    "[guest]\nvcpus = 1,,2\ncmdline = \"open\nsysctl.vm..x = 1\n"
    "[host]\nthp.defarg = always\nthp.enabled = never\n"
    "mm.ksm.run = 1, 1\n" + wl + "SIZE_MIB = \"64\"x\n")
put("config", "bad-dup-ids.ini",
    "[guest]\nkernel = /a/vmlinuz, /b/vmlinuz\n" + wl +
    "SEED = a/b, a_b\n")

# ---- proto: mode byte, then the byte stream
def frame(obj, magic=b"VMTX", length=None):
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    n = len(body) if length is None else length
    return magic + struct.pack(">I", n) + body


def msg(i, t, **kw):
    return dict(v=1, id=i, type=t, **kw)


sample = dict(status="ok", exit_status=0, elapsed_s=1.5, user_s=1.0,
              sys_s=0.25, max_rss_kb=1024, minor_faults=10, major_faults=0,
              counters={"cycles": 123, "instructions": None,
                        "dtlb-load-misses": 7, "future-counter": 1},
              output="hello\n", output_truncated=False)
good = (frame(msg(0, "ready", agent_version="0.1.0", proto_version=1)) +
        frame(msg(1, "hello")) +
        frame(msg(2, "run", cmd="true", env={"A": "1"}, timeout_s=5)) +
        frame(msg(2, "heartbeat", elapsed_s=0.5)) +
        frame(msg(2, "reply", ok=True, result=sample)) +
        frame(msg(3, "reply", ok=False,
                  error={"code": "bad-request", "message": "no"})))
put("proto", "good-bytewise", b"\x00" + good)
put("proto", "good-chunk8", b"\x07" + good)
put("proto", "good-random", b"\x45" + good)
put("proto", "good-unbounded", b"\x90" + good)
bad = (b"garbage" + frame(msg(1, "hello")) + frame(b"{not json") +
       frame(b"[1,2]") + frame({"v": 2, "id": 1, "type": "x"}) +
       frame({"v": 1, "id": -1, "type": "x"}) + frame({"v": 1, "id": 1}) +
       frame({"v": 1, "id": 1, "type": ""}) + frame(b"", length=0) +
       b"VMTX" + struct.pack(">I", 2 * 1024 * 1024) + b"xxxx" +
       frame(msg(4, "reply", result=dict(sample, status="weird"))) +
       frame(msg(5, "reply", result=dict(sample, exit_status=999))) +
       frame(msg(6, "reply", result=dict(sample, counters={"cycles": -1}))) +
       frame(msg(7, "reply", result=dict(sample, elapsed_s=-1))) +
       frame(b'{"v":1,"id":1,"type":"a","type":"b"}') +
       b"VMT" + frame(msg(8, "shutdown")) + b"VMTX\x00\x00")
put("proto", "bad-mixed", b"\x03" + bad)
put("proto", "bad-mixed-unbounded", b"\xc1" + bad)
obs = {"cmdline": "console=ttyS0 panic=-1", "cpus_online": 2,
       "mem_total_kb": 983616,
       "directmap_kb": {"4k": 12160, "2M": 1036288, "1G": None},
       "userland": "busybox",
       "userland_tools": {"sh": "busybox", "ls": "busybox", "dd": "busybox"}}
knobs = (frame(msg(1, "hello")) +
         frame(msg(1, "reply", ok=True,
                   result=dict(obs, agent_version="0.1.0", proto_version=1,
                               kernel="6.1.0", cpus=2, mem_bytes=1 << 30,
                               thp_enabled="always", thp_defrag="madvise",
                               flavour="normal"))) +
         frame(msg(2, "observe")) +
         frame(msg(2, "reply", ok=True, result=obs)) +
         frame(msg(3, "set-knob", name="sysctl.vm.swappiness", value="10")) +
         frame(msg(3, "reply", ok=True,
                   result={"name": "sysctl.vm.swappiness", "value": "10"})) +
         frame(msg(4, "set-knob", name="kernel.foo", value="1")) +
         frame(msg(4, "reply", ok=False,
                   error={"code": "bad-knob",
                          "message": "'kernel.foo' is not a guest knob"})) +
         frame(msg(5, "reply", ok=True,
                   result=dict(obs, cpus_online=-1,
                               directmap_kb={"4k": "x"}))) +
         frame(msg(6, "reply", ok=True,
                   result=dict(obs, userland_tools=None))))
put("proto", "knobs-observe", b"\x05" + knobs)
put("proto", "truncated", b"\x02" + frame(msg(9, "hello"))[:-3])

# ---- results: the report fixtures
os.makedirs(f"{C}/results", exist_ok=True)
for p in glob.glob("tests/fixtures/*.json"):
    shutil.copy(p, f"{C}/results/" + os.path.basename(p))
put("results", "bad-not-json", "{\"schema\": ")
put("results", "bad-empty-object", "{}")
with open("tests/fixtures/results-demo.json") as f:
    doc = json.load(f)
doc["run"]["baseline"] = "nosuch" if "run" in doc and isinstance(
    doc["run"], dict) else None
put("results", "bad-baseline.json", json.dumps(doc))

# ---- kvm-hist: kvm_exit hist files recorded in the lab, and broken ones
KVM_HIST = "sys/kernel/tracing/events/kvm/kvm_exit/hist"
for p in sorted(glob.glob(f"tests/fixtures/kvm/*/{KVM_HIST}")):
    case = p.split("/")[3]
    os.makedirs(f"{C}/kvm-hist", exist_ok=True)
    shutil.copy(p, f"{C}/kvm-hist/hist-{case}")
HDR = ("# event histogram\n#\n# trigger info: hist:keys=exit_reason:"
       "vals=hitcount:sort=hitcount:size=2048 [{}]\n#\n\n")
put("kvm-hist", "empty", "")
put("kvm-hist", "bad-code", HDR.format("active") +
    "{ exit_reason:          1 } hitcount:          1\n"
    "{ exit_reason: 99999999999 } hitcount: 1\n\n"
    "Totals:\n    Hits: 1\n    Entries: 1\n    Dropped: 0\n")
put("kvm-hist", "overflow", HDR.format("paused") +
    "{ exit_reason:          1 } hitcount: 18446744073709551615\n"
    "{ exit_reason:          2 } hitcount: 1\n\n"
    "Totals:\n    Hits: 0\n    Entries: 2\n    Dropped: 3\n")

# ---- profile: perf records, folded stacks, kallsyms, an ELF file
PERF_RECORD_MMAP, PERF_RECORD_LOST, PERF_RECORD_COMM = 1, 2, 3
PERF_RECORD_FORK, PERF_RECORD_SAMPLE = 7, 9
CTX_KERNEL, CTX_USER = 2**64 - 128, 2**64 - 512


def rec(kind, misc, body):
    return struct.pack("<IHH", kind, misc, 8 + len(body)) + body


def cstr(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


def sid(pid, time):
    return struct.pack("<IIQ", pid, pid, time)


chain = [CTX_KERNEL, 0xffffffff81000010, 0xffffffff81000105, CTX_USER,
         0x400150, 0x400210]
sample = rec(PERF_RECORD_SAMPLE, 1,
             struct.pack("<QIIQQ", 0xffffffff81000010, 100, 100, 30,
                         len(chain)) + struct.pack(f"<{len(chain)}Q", *chain))
records = (sample +
           rec(PERF_RECORD_COMM, 1 << 13,
               struct.pack("<II", 100, 100) + cstr("randwalk") + sid(100, 10)) +
           rec(PERF_RECORD_MMAP, 0,
               struct.pack("<IIQQQ", 100, 100, 0x400000, 0x1000, 0) +
               cstr("/opt/vmtax/bin/randwalk") + sid(100, 20)) +
           rec(PERF_RECORD_FORK, 0,
               struct.pack("<IIIIQ", 101, 100, 101, 100, 25) + sid(101, 25)) +
           rec(PERF_RECORD_LOST, 0, struct.pack("<QQ", 1, 7) + sid(100, 40)))
put("profile", "records", records)
put("profile", "records-truncated", records[:-5])
put("profile", "folded",
    "randwalk;main 442\n"
    "randwalk;main;asm_exc_page_fault;exc_page_fault;handle_mm_fault;"
    "clear_page_erms 27\n[other stacks] 3\n")
put("profile", "folded-bad", "a;;b 1\nc 0\n")
# stacks at the depth cap (PROFILE_STACK_FRAMES_MAX, lib/caps.h) and one
# frame past it
put("profile", "folded-deep-cap", ";".join(["f"] * 1024) + " 3\na;b 1\n")
put("profile", "folded-deep-over", "a 1\n" + ";".join(["f"] * 1025) + " 3\n")
put("profile", "kallsyms",
    "ffffffff81000000 T clear_page_erms\n"
    "ffffffff81000100 T handle_mm_fault\n"
    "ffffffffc0000000 t virtio_probe\t[virtio]\n")
put("profile", "kallsyms-hidden", "0000000000000000 T clear_page_erms\n")
# a mangled name from Debian 12's cc1 (the demangler)
put("profile", "demangle",
    "_ZN10hash_tableI10pre_expr_dLb0E11xcallocatorE19find_slot_with_hashERKPS0_j"
    "13insert_option")
# a minimal ELF64 executable as tests/unit/test-profile.c builds it
elf = bytearray(0x1000)
elf[0:16] = b"\x7fELF\x02\x01\x01" + b"\0" * 9
elf[16:64] = struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0x400100, 64, 0x400,
                         0, 64, 56, 1, 64, 3, 0)
elf[64:120] = struct.pack("<IIQQQQQQ", 1, 5, 0, 0x400000, 0x400000,
                          0x1000, 0x1000, 0x1000)
elf[0x218:0x230] = struct.pack("<IBBHQQ", 1, 0x12, 0, 1, 0x400100, 0x100)
elf[0x230:0x248] = struct.pack("<IBBHQQ", 6, 0x12, 0, 1, 0x400200, 0x80)
elf[0x300:0x30b] = b"\0walk\0main\0"
elf[0x440:0x480] = struct.pack("<IIQQQQIIQQ", 0, 2, 0, 0, 0x200, 0x48, 2,
                               0, 8, 24)
elf[0x480:0x4c0] = struct.pack("<IIQQQQIIQQ", 0, 3, 0, 0, 0x300, 11, 0,
                               0, 1, 0)
put("profile", "elf", bytes(elf))
put("profile", "elf-stripped", bytes(elf[:0x400]))
