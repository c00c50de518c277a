#!/usr/bin/env python3
"""Write tests/fixtures/results-{stream-thp,thp-pathology,hint-sweep}.json.

Hand-made runs of the seed configs (configs/stream-thp.ini,
thp-pathology.ini, hint-sweep.ini) with the cell ids those configs give, for
'vmtax compare --effect' against the seed references (tests/t0160).  The
means are the ones docs/seed-configs.md reports for the runs of 2026-12-03;
each cell has 3 samples at 0.98, 1.00 and 1.02 times its mean, so every
interval is bounded.  Not measured: fixtures, rerun this to change them.
"""
import json
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPREAD = (0.98, 1.0, 1.02)
NULL_COUNTERS = {k: None for k in ("task-clock", "page-faults", "context-switches",
                                   "cycles", "instructions", "dTLB-loads",
                                   "dTLB-load-misses")}


def workload(name, params):
    ini = open(os.path.join(TOP, "configs/workloads", name + ".ini")).read()
    keys = {}
    for line in ini.splitlines():
        if line.startswith("["):
            if line.strip() != "[workload]":
                break
            continue
        if "=" in line and not line.startswith(";"):
            k, v = line.split("=", 1)
            keys[k.strip()] = v.strip()
    return {"name": name, "description": keys["description"],
            "metric": keys["metric"], "unit": keys["unit"],
            "better": keys["better"], "params": params}


def cell(where, host, guest, extra, mean, params, series=None):
    axes = {"where": where, "host-thp": host}
    cid = f"{where}/host-thp={host}"
    if where == "guest":
        axes["guest-thp"] = guest
        cid += f"/guest-thp={guest}"
    for k, v in extra:
        axes[k] = v
        cid += f"/{k}={v}"
    env = {"where": where, "host_thp": host,
           "guest_thp": guest if where == "guest" else None,
           "vcpus": 1 if where == "guest" else None,
           "memory_bytes": 2147483648 if where == "guest" else None,
           "paging": "tcg" if where == "guest" else None,
           "backing": "thp" if where == "guest" else None}
    observed = {"host_thp": host}
    if where == "guest":
        observed["guest_thp"] = guest
    samples = []
    for i, f in enumerate(SPREAD):
        m = round(mean * f, 6)
        s = {"index": i, "status": "ok", "reason": None, "exit_status": 0,
             "elapsed_s": m if params["metric_is_elapsed"] else 1.0,
             "user_s": None, "sys_s": None, "max_rss_kb": None,
             "minor_faults": None, "major_faults": None, "metric": m,
             "counters": dict(NULL_COUNTERS)}
        if series:
            s["series"] = {"x": [x for x, _ in series],
                           "y": [round(y * f, 3) for _, y in series]}
        samples.append(s)
    return {"id": cid, "axes": axes, "env": env, "status": "ok",
            "reason": None, "observed": observed, "samples": samples}


def run(name, wl, baseline, axes, cells):
    cfg = f"configs/{name}.ini"
    return {
        "schema": "vmtax-results/1",
        "run": {"name": name, "config_path": cfg,
                "config_text": open(os.path.join(TOP, cfg)).read(),
                "started": "2026-12-03T10:00:00Z",
                "finished": "2026-12-03T10:02:00Z", "status": "complete",
                "host": {"hostname": "fixture-host", "kernel": "6.1.0-13-amd64",
                         "cpu_model": "fixture", "cpus": 2,
                         "mem_bytes": 8327364608, "accel": "tcg",
                         "accel_reason": "/dev/kvm is missing"},
                "versions": {"vmtax": "0.1.0", "libvirt": "9.0.0",
                             "qemu": "7.2.7"}},
        "workload": wl, "baseline": baseline, "axes": axes, "cells": cells}


def axis(name, key, values, applies="all", numeric=False):
    a = {"name": name, "key": key, "values": values, "numeric": numeric,
         "applies": applies}
    if numeric:
        a["numbers"] = [int(v) for v in values]
    return a


THP = [axis("where", "matrix.where", ["bare-metal", "guest"]),
       axis("host-thp", "matrix.host_thp", ["always", "never"]),
       axis("guest-thp", "matrix.guest_thp", ["always", "never"], "guest")]
PAIRS = [("bare-metal", "always", None), ("bare-metal", "never", None),
         ("guest", "always", "always"), ("guest", "never", "never")]
ELAPSED = {"metric_is_elapsed": False}

# stream-thp: triad MB/s per cell (docs/seed-configs.md)
stream = {("bare-metal", "never", "262144"): 41473,
          ("bare-metal", "always", "262144"): 37154,
          ("bare-metal", "never", "4194304"): 13952,
          ("bare-metal", "always", "4194304"): 15546,
          ("guest", "never", "262144"): 896,
          ("guest", "always", "262144"): 1266,
          ("guest", "never", "4194304"): 1109,
          ("guest", "always", "4194304"): 1024}
cells = [cell(w, h, g, [("ELEMENTS", e)], stream[(w, h, e)], ELAPSED)
         for w, h, g in PAIRS for e in ("262144", "4194304")]
docs = {"stream-thp": run(
    "stream-thp", workload("stream", {"ELEMENTS": "262144, 4194304", "NTIMES": "5"}),
    "bare-metal/host-thp=never/ELEMENTS=262144",
    THP + [axis("ELEMENTS", "workload.ELEMENTS", ["262144", "4194304"],
                numeric=True)], cells)}

# thp-pathology: elapsed s
patho = {("bare-metal", "never"): 0.016, ("bare-metal", "always"): 0.828,
         ("guest", "never"): 0.054, ("guest", "always"): 4.134}
docs["thp-pathology"] = run(
    "thp-pathology",
    workload("sparse-touch", {"SIZE_MIB": "1024", "STRIDE_KIB": "2048", "ROUNDS": "4"}),
    "bare-metal/host-thp=never", THP,
    [cell(w, h, g, [], patho[(w, h)], ELAPSED) for w, h, g in PAIRS])

# hint-sweep: ns per access at 128 MiB, and the curve
curve = {"bare-metal/always": [3.3, 3.8, 5.5, 54.1, 14.7, 11.5, 33.7, 37.1, 75.4, 116.7, 155.7, 167.9],
         "bare-metal/never": [3.6, 4.0, 6.9, 11.5, 15.8, 13.5, 42.0, 57.0, 110.5, 154.8, 190.6, 204.4],
         "guest/always": [7.5, 8.3, 10.9, 14.3, 19.5, 17.5, 50.8, 62.8, 145.2, 169.7, 233.7, 331.9],
         "guest/never": [8.1, 10.1, 12.1, 22.3, 32.9, 22.7, 114.5, 132.5, 171.3, 233.6, 320.1, 613.0]}
xs = [16, 64, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072]
docs["hint-sweep"] = run(
    "hint-sweep", workload("wss-sweep", {"MAX_MIB": "128", "ACCESSES": "100000"}),
    "bare-metal/host-thp=always", THP,
    [cell(w, h, g, [], curve[f"{w}/{h}"][-1], ELAPSED,
          list(zip(xs, curve[f"{w}/{h}"]))) for w, h, g in PAIRS])

for name, doc in docs.items():
    path = os.path.join(TOP, "tests/fixtures", f"results-{name}.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(path, file=sys.stderr)
