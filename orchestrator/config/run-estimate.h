/* SPDX-License-Identifier: MIT */
/*
 * run-estimate.h - how long a run will take, said before it runs
 * (docs/estimate.md): 'vmtax run --dry-run', the first lines of a run, and
 * the ETA of its progress lines.  Pure: no I/O.  The caller
 * (run-timing.c) gives the cells and a figure for each cost: this host's
 * own from its last run (timings.h), else the workload's declared
 * 'estimate', else an assumed one; each figure says which.
 *
 * The model, for the cells as the engine takes them:
 *
 *   wall = images to build + lab start
 *        + sum over cells of  samples x sample_s
 *                           + starts x (boot_s + warmup x sample_s + rest_s)
 *
 * A cell's starts are its guest boots (a guest cell: a fresh guest every
 * [run] boots share of its samples, or every interleaved epoch) or the
 * times a bare-metal cell is set up (once, or once per interleaved group
 * it joins); boot_s is 0 on bare metal.  sample_s depends on where the
 * sample runs (enum est_place) and the cell's workload parameters; boot_s
 * on the image and the place; rest_s is what a start costs besides
 * (setup, host settings, the guest's shutdown, waits for a quiet host),
 * measured as what the workload's last run here spent outside samples,
 * boots and warm-ups, per start.  With [run] target or plan = auto the
 * samples are not known ahead: the estimate is the first pass (repeat
 * samples, or plan = auto's sizing pass) and says "up to" the most the
 * rules allow (max_repeat samples; max_boots boots).
 *
 * The ETA of a running run (est_eta()) is the same model over what is
 * left (samples not yet taken, starts no sample has followed yet), scaled
 * by how the run has gone against it so far: (elapsed + P) / (done + P),
 * P a tenth of the whole estimate, so one slow boot early does not swing
 * it; before any start or sample is behind it, the model less the time
 * gone.
 */
#ifndef VMTAX_RUN_ESTIMATE_H
#define VMTAX_RUN_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>

#include "matrix.h"

/* Where a cell's samples run, for the figures of a sample and a boot. */
enum est_place {
	EST_BARE,	/* this host itself */
	EST_GUEST_KVM,	/* a guest of this host's KVM */
	EST_GUEST_TCG,	/* a guest of this host's TCG (paging = tcg, no KVM) */
	EST_LAB_BARE,	/* the lab host itself (TCG-emulated) */
	EST_LAB_GUEST,	/* a guest of the lab host's KVM */
	EST_NPLACES
};
/* "bare-metal", "guest-kvm", "guest-tcg", "lab-bare-metal", "lab-guest" */
const char *est_place_name(enum est_place p);
/* 0 and *OUT, or -EINVAL for a name not above. */
int est_place_parse(const char *s, enum est_place *out);
/* The place of a cell: in the lab or not, a guest or not, a TCG guest. */
enum est_place est_place_of(bool lab, bool guest, bool tcg);
/*
 * A sample at P against the same on bare metal, to scale a workload's
 * declared estimate (an assumption, said as one), for a workload TCG
 * slows TCG times (its estimate_tcg; 0: EST_ASSUMED_TCG).  TCG emulates
 * every instruction (docs/profile.md "Cost"): code that computes runs 10
 * to 20 times slower (kbuild 12x), code that waits on memory about as
 * fast (randwalk 1x here, docs/estimate.md).
 */
double est_place_factor(enum est_place p, double tcg);

/* Assumed figures, where nothing was measured or declared. */
#define EST_ASSUMED_SAMPLE_S 10.0 /* a workload with no estimate */
#define EST_ASSUMED_TCG 10.0	  /* TCG against bare metal */
#define EST_ASSUMED_REST_S 3.0	  /* per start: setup, shutdown, settings */
#define EST_ASSUMED_LAB_RESTORED_S 10.0
#define EST_ASSUMED_LAB_BOOTED_S 40.0
#define EST_ASSUMED_IMAGE_SECONDS_S 40.0 /* from this host's packages */
#define EST_ASSUMED_IMAGE_MINUTES_S 420.0 /* through debootstrap */
/* Boot to hello of IMAGE ("tiny", "debian", anything else as debian) at
 * P, assumed. */
double est_assumed_boot_s(const char *image, enum est_place p);

/*
 * A workload's declared estimate (its 'estimate' key): seconds a sample
 * takes on bare metal, as a sum of terms, each a number or a number times
 * a parameter ("0.5 + 0.0034 * SIZE_MIB + 0.00000046 * READS"; NAME * C
 * is C * NAME).  Its value for parameters NAMES[i] = VALUES[i] (i < N),
 * each named one a number (ini_number(): "2G" is bytes) into *OUT; *PARAMS
 * (may be NULL) gets whether it names any.  0, or -EINVAL with the reason
 * in WHY: bad syntax, a name that is not a parameter, a value that is not
 * a number.  'vmtax run' and the workload's check use this one reading.
 */
int est_declared_eval(const char *expr, const char *const *names,
		      const char *const *values, size_t n, double *out,
		      bool *params, char *why, size_t len);

enum est_source { EST_MEASURED, EST_DECLARED, EST_ASSUMED };

/* One cost: seconds, and where the figure came from. */
struct est_figure {
	double s;
	enum est_source src;
	char date[16];	/* EST_MEASURED: the day (YYYY-MM-DD) */
	char how[256];	/* EST_DECLARED, EST_ASSUMED: how it was made */
};

/* The rules of [run] that decide how many samples and starts. */
struct est_rules {
	bool interleaved; /* order = interleaved */
	long repeat, boots, warmup;
	bool target;	  /* [run] target set: more samples may follow */
	long max_repeat;
	bool plan_auto;	  /* [run] plan = auto */
	long max_boots;
	unsigned long long mem_budget; /* interleaved groups' (0: none) */
};

/* A cell's share: samples and starts, first pass and the most. */
struct est_count {
	long samples, starts;
	long samples_hi, starts_hi;
};

/*
 * How many samples and starts each of CELLS[0..N) takes (GUEST[ci]: a
 * guest cell), as the engine takes them (run-engine.c, run-rounds.c):
 * into OUT[0..N).
 */
void est_count_cells(const struct est_rules *ru, const struct cell *cells,
		     int n, const bool *guest, struct est_count *out);

/* A cell's costs, with labels for the summary. */
struct est_cell {
	struct est_count count;
	bool guest;
	struct est_figure sample;
	struct est_figure boot;	 /* guest cells */
	char sample_what[96];	 /* "randwalk, guest-tcg" */
	char boot_what[64];	 /* "tiny, guest-tcg" */
};

struct est_input {
	struct est_cell *cells;
	int ncells;
	long warmup;
	struct est_figure rest; /* per start */
	bool lab;		/* a lab starts first */
	struct est_figure lab_start;
	char lab_what[64];	/* "restore" */
	int nimages;		/* images built first (0 or 1) */
	struct est_figure image;
	char image_what[64];	/* "lab image, from this host's packages" */
	char range_why[128];	/* why the most differs, or "" */
};

/* The whole run's seconds: the first pass, and the most (HI). */
double est_total(const struct est_input *in, bool hi);
/*
 * The estimate as one line, "estimate: 23 min (10 cells; ...)", into BUF
 * (what each term counts and its figure's source), then one line per
 * figure that was not measured here, saying what it assumed.
 */
void est_format(const struct est_input *in, char *buf, size_t len);
/* SECONDS as "45 s", "7.5 min", "23 min", "2 h 05 min". */
void est_duration(double seconds, char *buf, size_t len);

/* A cell while the run goes: what it has done since the run began. */
struct est_now {
	bool pending;	    /* still to take samples */
	long samples_done;  /* taken in this run */
	long samples_left;  /* planned, not taken */
	long boots_done;    /* guests booted in this run */
};
/*
 * Seconds left: the model over what NOW[0..in->ncells) leaves, scaled by
 * (ELAPSED + P) / (done + P) (see the top).
 */
double est_eta(const struct est_input *in, const struct est_now *now,
	       double elapsed);

#endif
