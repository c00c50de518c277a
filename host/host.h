/* SPDX-License-Identifier: MIT */
/*
 * host.h - host control: the only code that writes /sys or loads modules.
 * (To be completed by the host module; this is the part the orchestrator
 * needs first.)
 */
#ifndef VMTAX_HOST_H
#define VMTAX_HOST_H

#include <stddef.h>

/*
 * The accel decision for accel=auto: "kvm" only when ROOT/dev/kvm can be
 * opened read-write and ROOT/proc/cpuinfo shows vmx or svm; otherwise "tcg".
 * WHY receives a one-line reason either way.  ROOT is "" on the real host and
 * a fake tree in tests.  Returns a static string ("kvm" or "tcg").
 */
const char *host_accel_decide(const char *root, char *why, size_t len);

#endif
