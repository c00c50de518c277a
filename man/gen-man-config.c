// SPDX-License-Identifier: MIT
/*
 * gen-man-config: print vmtax-config(5) as roff on stdout, with @VERSION@
 * and @DATADIR@ for the Makefile to fill (as in the man/NAME.N.in pages).  The
 * key sections come from the tables that drive parsing and --help
 * (run-config.c, workload-def.c), so the page cannot disagree with them.
 */
#include <stdio.h>

#include "ini-schema.h"
#include "run-config.h"
#include "workload-def.h"

static const char head[] =
    ".TH VMTAX\\-CONFIG 5 \"\" \"vmtax @VERSION@\" \"vmtax manual\"\n"
    ".SH NAME\n"
    "vmtax\\-config \\- vmtax run configs and workload files\n"
    ".SH SYNOPSIS\n"
    ".I CONFIG.ini\n"
    ".br\n"
    ".IR DIR /workloads/ NAME .ini\n"
    ".SH DESCRIPTION\n"
    "A run config names a workload and the matrix of cells to run it in; "
    "\\fBvmtax\\-run\\fR(1) reads it.  A workload file says how to run one "
    "workload and which parameters it takes; the config's \\fBworkload.dir\\fR "
    "(relative to the config file, default \\fBworkloads\\fR) holds them.\n"
    ".PP\n"
    "Both are INI files: \\fB[section]\\fR headers, \\fBkey = value\\fR "
    "lines, comments starting with \\fB;\\fR or \\fB#\\fR.  Files must be "
    "UTF\\-8, at most 1 MiB; a \\fIkey\\fB = \\fIvalue\\fR line may be as long "
    "as that, a section header at most %d characters; a section "
    "may not appear twice.  An unknown key is refused with a suggestion; "
    "every error is reported as \\fIFILE\\fB:\\fILINE\\fB: \\fImessage\\fR "
    "and \\fBvmtax run\\fR exits with status 2 before touching the host.\n"
    ".PP\n"
    "A key of type \\fITYPE\\fB,..\\fR takes a comma\\-separated list; an "
    "element in double quotes may hold a comma or be empty (\\fB\"\"\\fR).  "
    "A list for a [guest] key, a [host] or guest knob or a workload "
    "parameter makes that setting an axis of the matrix: every cell is run "
    "for each of its values.  A \\fIsize\\fR is bytes, or a number with "
    "K, M, G or T.\n"
    ".PP\n"
    "Any key may be overridden on the command line with "
    "\\fB\\-\\-set\\fR \\fISECTION\\fB.\\fIKEY\\fB=\\fIVALUE\\fR, a workload "
    "parameter with \\fB\\-\\-set workload.\\fINAME\\fB=\\fIVALUE\\fR.\n"
    ".SH RUN CONFIG KEYS\n";

static const char middle[] =
    ".SH WORKLOAD FILES\n"
    "A workload file \\fINAME\\fB.ini\\fR has one [workload] section and a "
    "[param.\\fINAME\\fR] section per parameter.  Its commands run under "
    "\\fBsh \\-c\\fR, with the parameters in the environment and the "
    "workload binaries on PATH, on bare metal and in the guest alike.\n";

static const char tail[] =
    ".SH EXAMPLE\n"
    ".nf\n"
    "[run]\n"
    "name = demo\n"
    "repeat = 3\n"
    "baseline = bare\\-metal/host\\-thp=always\n"
    "\n"
    "[guest]\n"
    "vcpus = 2\n"
    "memory = 2G\n"
    "\n"
    "[matrix]\n"
    "where = bare\\-metal, guest\n"
    "host_thp = always, never\n"
    "guest_thp = always, never\n"
    "\n"
    "[workload]\n"
    "name = randwalk\n"
    "SIZE_MIB = 1024\n"
    ".fi\n"
    ".SH FILES\n"
    ".TP\n"
    ".I @DATADIR@/configs\n"
    "the configs shipped with vmtax (installed), or \\fIconfigs/\\fR in a "
    "build tree\n"
    ".TP\n"
    ".I @DATADIR@/configs/workloads\n"
    "the shipped workload files\n"
    ".SH SEE ALSO\n"
    "\\fBvmtax\\fR(1), \\fBvmtax\\-run\\fR(1), \\fBvmtax\\-workloads\\fR(1)\n";

int main(void)
{
	printf(head, INI_LINE_MAX - 2);
	run_config_print_man(stdout);
	fputs(middle, stdout);
	workload_print_man(stdout);
	fputs(tail, stdout);
	return 0;
}
