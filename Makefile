# vmtax - what virtualization costs a workload.
#
#   make            build vmtax, the guest agent (and its test build, which
#                   the tiny image carries) and the workloads: everything
#                   'vmtax run', 'vmtax lab run' and 'vmtax image build' need
#   make demo       install deps, build, run configs/demo.ini, print the table
#   make check      install deps, the layers' check, unit tests (ASan+UBSan)
#                   and integration tests
#   make check-slow the slow tests in tests/slow (the debian image: minutes)
#   make bench      print the runner overhead, boot-to-hello time, peak RSS
#   make deps       install what the demo needs (printed before it is done):
#                   packages, the guest kernel unpacked into build/kernel,
#                   hugetlbfs mounts, libvirtd/virtlogd started if not running
#   make deps-check that, and the test tools 'make check' uses
#   make deps-workloads  also the packages the workloads ask for (packages =
#                   in configs/workloads/*.ini), for their bare-metal cells
#   make image-tiny build the tiny initramfs guest
#   make srcsets    the source set of the ccbuild workload, where linux-source
#                   is installed (make deps-workloads); 'make' makes it too
#   make clean
#
# Layout: every lib/*.c, host/*.c, vocab/*.c, reports/*.c, guest-image/build/*.c and
# orchestrator/*/*.c file is picked up by wildcard; adding a source file (or
# a folder of orchestrator/) needs no Makefile change.  Every one of those
# folders is on the include path.
# lib/ is also linked (statically) into the guest agent, so it may depend only
# on libc, jansson, libiberty (the profiler's C++ demangler: LIBERTY) and
# elfutils' libelf (the profiler's ELF symbol tables: AGENT_LIBS).

CC       ?= cc
B        ?= build
SAN      ?=
OPT      ?= -O2
PKGS     := libvirt libxml-2.0 jansson inih libkmod libguestfs liblzma libelf
WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
            -Wmissing-prototypes -Wstrict-prototypes
# orchestrator/ is folders by job: config, engine, exec, guest, lab, fleet
# and cli (the commands and main()).
ORCH_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard orchestrator/*/*.c))))
CPPFLAGS += -D_GNU_SOURCE -Ilib -Ihost -Ivocab -Ireports $(ORCH_DIRS:%=-I%) \
            -Iguest-image/build \
            -I$(B)/gen -DVMTAX_VERSION='"$(VERSION)"'
CFLAGS   += -std=c11 -g $(OPT) $(WARN) $(SAN)
VERSION  := 0.1.0

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libiberty (libiberty-dev) has no pkg-config file and is only static.
LIBERTY   := -liberty
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) $(LIBERTY)

LIB_SRCS    := $(wildcard lib/*.c)
HOST_SRCS   := $(wildcard host/*.c)
VOCAB_SRCS  := $(wildcard vocab/*.c)
REPORT_SRCS := $(wildcard reports/*.c)
ORCH_SRCS   := $(filter-out orchestrator/cli/main.c,$(wildcard orchestrator/*/*.c))
# guest-image/ is what goes into the guest: build/ is the image builder and
# the guest files' layout (host side, in vmtax); agent/ is the static
# program in the guest, built from guest-image/agent/ and lib/ only.
IMG_SRCS    := $(wildcard guest-image/build/*.c)
CORE_SRCS   := $(LIB_SRCS) $(HOST_SRCS) $(VOCAB_SRCS) $(REPORT_SRCS) $(ORCH_SRCS) $(IMG_SRCS)
CORE_OBJS   := $(CORE_SRCS:%.c=$(B)/obj/%.o)
WL_SRCS     := $(wildcard workloads/*.c)
WL_BINS     := $(WL_SRCS:workloads/%.c=build/bin/%)
UNIT_SRCS   := $(wildcard tests/unit/test-*.c)
UNIT_BINS   := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
# Programs the shell tests drive (not unit tests): tests/NAME.c.
TEST_TOOLS  := $(B)/tests/agent-drive

# The agent and the workloads are static and never sanitized: they run in the
# guest, and ASan does not support static linking.  They always live in build/.
# Their bytes do not depend on where the checkout is (the debug info's
# directory is "."), so two clones make the same ones and share one lab
# image (its recipe hashes them: image.h).
REPRO_CFLAGS := -ffile-prefix-map=$(CURDIR)=.
AGENT_SRCS  := $(wildcard guest-image/agent/*.c) $(LIB_SRCS)
AGENT_CFLAGS = -std=c11 -g -O2 $(REPRO_CFLAGS) $(WARN) -D_GNU_SOURCE -Ilib \
               -Ibuild/gen -DVMTAX_VERSION='"$(VERSION)"' $(AGENT_EXTRA)
# libelf.a needs zlib: pkg-config --static says which.
AGENT_LIBS   = -ljansson $(LIBERTY) $(shell pkg-config --static --libs libelf 2>/dev/null) -lm

.PHONY: install uninstall man FORCE srcsets
.PHONY: all check check-unit check-integration demo bench deps deps-check deps-workloads clean \
        image-tiny fmt san tools fuzz fuzz-build fuzz-replay check-slow
# The tiny image (mkinitramfs-tiny.sh, and so the lab image's) carries
# both agents: 'all' builds both, so that every command works after 'make'.
AGENTS := build/bin/vmtax-agent build/bin/vmtax-agent-test
all: $(B)/vmtax $(AGENTS) $(WL_BINS) $(TEST_TOOLS) srcsets

tools: $(AGENTS) $(WL_BINS) srcsets

# The ccbuild workload's source set (configs/workloads/ccbuild.ini): files
# of Debian's linux-source, checked against workloads/ccbuild.sha256, into
# build/src (beside build/bin: guest-files.h guest_srcdir_new()), which the
# debian and lab images carry.  The script keys it by the manifest's and its
# own contents: a no-op when they are unchanged, nothing where linux-source
# is not installed.  Always in build/, as the agent and the workloads.
SRCSET := build/src/ccbuild.tar
srcsets:
	@sh workloads/ccbuild-srcset.sh --if-source $(SRCSET)

$(B)/obj/%.o: %.c | $(B)/gen/install-dirs.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Everything but main() goes into one archive, so a unit test links only the
# objects it uses.
$(B)/libvmtax.a: $(CORE_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/vmtax: $(B)/obj/orchestrator/cli/main.o $(B)/libvmtax.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

build/bin/vmtax-agent: $(AGENT_SRCS) $(wildcard lib/*.h) $(wildcard guest-image/agent/*.h) | build/gen/install-dirs.h
	@mkdir -p $(dir $@)
	$(CC) $(AGENT_CFLAGS) -static -o $@ $(AGENT_SRCS) $(AGENT_LIBS)

build/bin/vmtax-agent-test: $(AGENT_SRCS) $(wildcard lib/*.h) $(wildcard guest-image/agent/*.h) | build/gen/install-dirs.h
	@mkdir -p $(dir $@)
	$(CC) $(AGENT_CFLAGS) -DVMTAX_AGENT_TEST -static -o $@ $(AGENT_SRCS) $(AGENT_LIBS)

# Frame pointers, leaf functions' too, so the profiler's user call chains
# (walked by the kernel through them) reach main (docs/profile.md); the
# static libc linked in has none.
WL_CFLAGS := -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
build/bin/%: workloads/%.c $(wildcard workloads/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 $(REPRO_CFLAGS) $(WL_CFLAGS) $(WARN) -D_GNU_SOURCE -static -o $@ $< -lm

$(B)/tests/agent-drive: tests/agent-drive.c $(B)/libvmtax.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# make bench's programs: tests/bench-NAME.c.
$(B)/tests/bench-%: tests/bench-%.c $(B)/libvmtax.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# test-ini-linear counts the INI reader's string comparisons: its own
# strcmp() stands in for libvmtax.a's.
$(B)/tests/test-ini-linear: UNIT_LDFLAGS := -Wl,--wrap=strcmp
$(B)/tests/test-%: tests/unit/test-%.c $(B)/libvmtax.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -Itests/unit -o $@ $^ \
		$(UNIT_LDFLAGS) $(PKG_LIBS) -lcmocka -lm

# The tiny guest is built by 'vmtax image build' for the newest guest kernel
# (a no-op when its recipe is unchanged), which keeps the link 'vmtax run'
# looks for; 'vmtax image path initrd' names it.  vmtax itself is the
# unsanitized build/vmtax whatever B is.
image-tiny: $(AGENTS) $(WL_BINS)
	$(MAKE) B=build build/vmtax
	build/vmtax image build --kind tiny >/dev/null

# deps: what the demo needs (it prints what it changes first); deps-check:
# that and the test tools.  .ci/deps.sh lists both.
deps:
	sh .ci/deps.sh

deps-check:
	sh .ci/deps.sh --check

# ---- install layout (issue 14) ---------------------------------------------
# Where 'make install' puts vmtax; lib/layout.h describes the layout.
# The directories are compiled into vmtax through $(B)/gen/install-dirs.h,
# rewritten only when they change (so layout.o is rebuilt then, and only then).
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/vmtax
DATADIR    ?= $(PREFIX)/share/vmtax
DOCDIR     ?= $(PREFIX)/share/doc/vmtax
MANDIR     ?= $(PREFIX)/share/man
COMPLDIR   ?= $(PREFIX)/share/bash-completion/completions
CACHEDIR   ?= /var/cache/vmtax
STATEDIR   ?= /var/lib/vmtax
DESTDIR    ?=
INSTALL    ?= install

# lib/layout.c reads it; the agent (always in build/) links lib/ too.
%/gen/install-dirs.h: FORCE
	@mkdir -p $(dir $@)
	@{ echo '/* generated by the Makefile (PREFIX and friends): see layout.h */'; \
	  echo '#define VMTAX_BINDIR "$(BINDIR)"'; \
	  echo '#define VMTAX_LIBEXECDIR "$(LIBEXECDIR)"'; \
	  echo '#define VMTAX_DATADIR "$(DATADIR)"'; \
	  echo '#define VMTAX_CACHEDIR "$(CACHEDIR)"'; \
	  echo '#define VMTAX_STATEDIR "$(STATEDIR)"'; } >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
FORCE:

# The agent, the agent's test build and the workloads go to LIBEXECDIR;
# configs, workload INIs and the tiny image's script to DATADIR; the images
# are built on first use into CACHEDIR/images.  ccbuild's source set script
# and manifest go to DATADIR, not the set (GPL sources of linux-source, made
# where it is installed): 'sh DATADIR/ccbuild-srcset.sh CACHEDIR/src/ccbuild.tar'.
MAN_PAGES := $(patsubst man/%.in,build/man/%,$(wildcard man/*.[158].in)) \
             build/man/vmtax-config.5
install: all man
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) \
		$(DESTDIR)$(DATADIR)/configs/workloads $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(COMPLDIR) \
		$(DESTDIR)$(DOCDIR)/reference $(DESTDIR)$(CACHEDIR) \
		$(DESTDIR)$(STATEDIR)
	$(INSTALL) -m 755 $(B)/vmtax $(DESTDIR)$(BINDIR)/vmtax
	$(INSTALL) -m 755 build/bin/vmtax-agent build/bin/vmtax-agent-test \
		$(WL_BINS) $(DESTDIR)$(LIBEXECDIR)/
	$(INSTALL) -m 644 configs/*.ini $(DESTDIR)$(DATADIR)/configs/
	$(INSTALL) -m 644 configs/workloads/*.ini \
		$(DESTDIR)$(DATADIR)/configs/workloads/
	$(INSTALL) -m 755 guest-image/build/mkinitramfs-tiny.sh \
		guest-image/build/mkinitramfs-root.sh \
		$(DESTDIR)$(DATADIR)/
	$(INSTALL) -m 644 guest-image/build/mkinitramfs-lib.sh $(DESTDIR)$(DATADIR)/
	$(INSTALL) -m 644 workloads/ccbuild-srcset.sh workloads/ccbuild.sha256 \
		$(DESTDIR)$(DATADIR)/
	$(INSTALL) -m 644 README.md docs/*.md docs/*.json $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -m 644 configs/reference/* $(DESTDIR)$(DOCDIR)/reference/
	$(INSTALL) -m 644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(filter %.5,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man5/
	$(INSTALL) -m 644 $(filter %.8,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 644 completion/vmtax.bash $(DESTDIR)$(COMPLDIR)/vmtax

# Removes what install put there, and the images it built on first use
# (CACHEDIR); STATEDIR holds the host journal and is left alone.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/vmtax $(DESTDIR)$(COMPLDIR)/vmtax
	rm -rf $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)
	rm -f $(patsubst build/man/%,$(DESTDIR)$(MANDIR)/man1/%,$(filter %.1,$(MAN_PAGES))) \
	      $(patsubst build/man/%,$(DESTDIR)$(MANDIR)/man5/%,$(filter %.5,$(MAN_PAGES))) \
	      $(patsubst build/man/%,$(DESTDIR)$(MANDIR)/man8/%,$(filter %.8,$(MAN_PAGES)))
	rm -rf $(DESTDIR)$(CACHEDIR)
	-rmdir $(DESTDIR)$(COMPLDIR) $(DESTDIR)$(dir $(COMPLDIR)) \
	       $(DESTDIR)$(dir $(LIBEXECDIR)) 2>/dev/null

# Man pages: man/NAME.SECTION.in with @VERSION@; vmtax-config(5) is printed
# from the key tables by build/gen-man-config (tests/unit checks every key).
# A page's ENVIRONMENT section, where it says @ENVIRONMENT@, is printed from
# the table of environment variables (lib/env.h) by build/gen-man-env.
# @FORMATS@ is the report formats of REPORT_FORMATS (reports/format.h), in
# its order: "\fBtext\fR (default), \fBmd\fR, ... or \fBhtml\fR".
REPORT_FORMAT_NAMES := $(shell sed -n 's/^\#define REPORT_FORMATS(X) //p' \
	reports/format.h | sed 's/X(\([a-z0-9_]*\))/\1/g')
comma := ,
space := $(subst ,, )
MAN_FORMATS := \\fB$(firstword $(REPORT_FORMAT_NAMES))\\fR (default)$(subst \
	$(space)$(comma),$(comma),$(foreach f,$(wordlist 2,$(words $(wordlist \
	2,$(words $(REPORT_FORMAT_NAMES)),$(REPORT_FORMAT_NAMES))),$(REPORT_FORMAT_NAMES)),$(comma) \\fB$(f)\\fR)) \
	or \\fB$(lastword $(REPORT_FORMAT_NAMES))\\fR
MAN_SED = sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@DATADIR@|$(DATADIR)|g' \
	      -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' -e 's|@CACHEDIR@|$(CACHEDIR)|g' \
	      -e 's|@STATEDIR@|$(STATEDIR)|g' -e 's|@FORMATS@|$(MAN_FORMATS)|g'
man: $(MAN_PAGES)
build/man/%: man/%.in $(B)/gen-man-env $(B)/gen/install-dirs.h reports/format.h
	@mkdir -p $(dir $@)
	$(B)/gen-man-env $(basename $*) >$@.env
	sed -e '/^@ENVIRONMENT@$$/{r $@.env' -e 'd;}' $< | $(MAN_SED) >$@.tmp
	rm -f $@.env && mv $@.tmp $@
build/man/vmtax-config.5: $(B)/gen-man-config $(B)/gen/install-dirs.h
	@mkdir -p $(dir $@)
	$(B)/gen-man-config | $(MAN_SED) >$@.tmp && mv $@.tmp $@
$(B)/gen-man-config: man/gen-man-config.c $(B)/libvmtax.a
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(B)/gen-man-env: man/gen-man-env.c $(B)/libvmtax.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $^
# ---- end install layout ----------------------------------------------------

# Bare-metal cells run a workload on the host: it needs what the images get;
# and linux-source, which ccbuild's source set is made from (srcsets).
WL_PKGS = $(shell sed -n 's/^packages *= *//p' configs/workloads/*.ini | tr , ' ')
deps-workloads:
	sh .ci/deps.sh $(WL_PKGS) linux-source
	$(MAKE) srcsets

# One sanitized pass: unit tests, then the shell tests with the sanitized
# vmtax.  The static agent and workloads are built normally, and so is a
# plain vmtax (image-tiny builds it): the quick lab test (t0547) runs it
# inside the lab, whose packages have no libasan.
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all
# demo, check and bench run 'deps' first, then a sub-make: on a fresh machine
# the guest kernel (and so the tiny image) exists only after deps.
# Its sub-makes build and run the unit tests JOBS at a time (make check
# JOBS=-j1 for one), each target's output kept together (-Otarget); the shell
# tests take -j from them (tests/run-shell-tests.sh).
NPROC := $(shell nproc 2>/dev/null || echo 1)
JOBS  ?= -j$(NPROC)
# check builds what the shell tests run first (the tools and the tiny image,
# the sanitized vmtax), then starts them; the sanitized unit tests and the
# fuzzers' replay are built and run beside them, into CHECK_SIDE_LOG, which
# is printed whole after the shell tests; a failure in either fails check.
# The guests' timings are asserted, and they leave the CPUs idle much of the
# time: the builds and the replay take only what they leave (SCHED_IDLE,
# as the shell tests that do not need the host do; nice 10 where chrt
# cannot or the host is busy: tests/check-nice.sh decides once), and the
# unit tests, some of which time a child process, run at nice 10.
CHECK_SIDE_LOG := build/check-unit-fuzz.log
# check sets it once, from tests/check-nice.sh, after its builds.
CHECK_IDLE ?= nice -n 10
check: deps-check check-layers
	$(MAKE) $(JOBS) check-build-shell
	@mkdir -p build; \
	echo "== the unit tests and the fuzzers' replay run beside the shell tests (their output: $(CHECK_SIDE_LOG), printed after them)"; \
	idle=$$(sh tests/check-nice.sh); \
	$(MAKE) $(JOBS) -Otarget --no-print-directory CHECK_IDLE="$$idle" check-side >$(CHECK_SIDE_LOG) 2>&1 & \
	side=$$!; rc=0; \
	$(MAKE) $(JOBS) B=build/san CHECK_IDLE="$$idle" check-integration || rc=$$?; \
	side_rc=0; wait $$side || side_rc=$$?; \
	echo "== the unit tests and the fuzzers' replay ($(CHECK_SIDE_LOG))"; \
	cat $(CHECK_SIDE_LOG); \
	if [ $$side_rc != 0 ]; then echo "== the unit tests or the fuzzers' replay failed (exit $$side_rc)"; fi; \
	[ $$rc = 0 ] && [ $$side_rc = 0 ]

# What the shell tests run is two trees (build/ with the tools and the tiny
# image, build/san with the sanitized vmtax) that share no file: one make
# (check-build-shell) builds them side by side, JOBS between them, so that
# one's serial part (the image, a link) overlaps the other's compiles.
# check-side builds the rest (the unit tests and the fuzz targets'
# replays) and runs them.
SAN_ARGS := B=build/san SAN="$(SANFLAGS)" OPT=-O1
.PHONY: check-build-shell check-build-plain check-build-san check-side \
	check-side-unit check-side-fuzz
check-build-shell: check-build-plain check-build-san
check-build-plain:
	$(MAKE) tools image-tiny
check-build-san:
	$(MAKE) $(SAN_ARGS) build/san/vmtax $(TEST_TOOLS:$(B)/%=build/san/%)
check-side: check-side-unit check-side-fuzz
check-side-unit:
	$(CHECK_IDLE) $(MAKE) $(SAN_ARGS) $(UNIT_BINS:$(B)/%=build/san/%)
	nice -n 10 $(MAKE) $(SAN_ARGS) -Otarget --no-print-directory check-unit
check-side-fuzz:
	$(CHECK_IDLE) $(MAKE) fuzz-replay

# The folders are layers (docs/development.md "Layers"): an include against
# their order, a loop between folders or an axis name spelled outside
# vocab/ fails, with the file and line (t0040 shows it failing).
.PHONY: check-layers
check-layers:
	python3 tests/include-folders.py --check

# Builds what it runs: 'make check-unit' works on a fresh tree.  One target
# per test binary, so that make -j runs them side by side.
UNIT_RUNS := $(UNIT_BINS:%=%.run)
.PHONY: $(UNIT_RUNS)
check-unit: $(UNIT_RUNS)
$(UNIT_RUNS): %.run: %
	@echo "== $<"; $<

# Slow shell tests (minutes: the debian image, real guests); not in 'check'.
check-slow: deps-workloads
	$(MAKE) all
	@set -e; for t in tests/slow/t[0-9]*.sh; do echo "== $$t"; \
		VMTAX=$(abspath $(B)/vmtax) sh $$t; done

# The shell tests find the tiny image with 'vmtax image path initrd'.
check-integration:
	@VMTAX=$(abspath $(B)/vmtax) sh tests/run-shell-tests.sh

# libFuzzer targets: tests/fuzz/fuzz-NAME.c with seeds in
# tests/fuzz/corpus/NAME/, built by clang with ASan and UBSan into build/fuzz.
# 'make fuzz' runs each for FUZZ_SECONDS on a copy of its corpus in
# build/fuzz/corpus/NAME (crashes land in build/fuzz/crash-NAME-*);
# 'make fuzz-replay' (make check's) runs each once over its committed
# corpus, built without libFuzzer (below).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz-%.c,%,$(wildcard tests/fuzz/fuzz-*.c))
FUZZ_SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer \
                -fno-sanitize-recover=all
$(B)/fuzz-%: tests/fuzz/fuzz-%.c $(B)/libvmtax.a
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ \
		$(PKG_LIBS) -lm

fuzz-build:
	$(MAKE) B=build/fuzz CC=$(FUZZ_CC) OPT=-O1 \
		SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
		$(FUZZ_NAMES:%=build/fuzz/fuzz-%)

fuzz: fuzz-build
	@set -e; for n in $(FUZZ_NAMES); do \
		mkdir -p build/fuzz/corpus/$$n; \
		cp tests/fuzz/corpus/$$n/* build/fuzz/corpus/$$n/; \
		echo "== fuzz-$$n for $(FUZZ_SECONDS) s"; \
		if ! build/fuzz/fuzz-$$n -max_total_time=$(FUZZ_SECONDS) \
			-close_fd_mask=3 -print_final_stats=1 \
			-artifact_prefix=build/fuzz/crash-$$n- \
			build/fuzz/corpus/$$n >build/fuzz/fuzz-$$n.log 2>&1; then \
			tail -n 60 build/fuzz/fuzz-$$n.log; exit 1; fi; \
		grep -E '(INITED|DONE) ' build/fuzz/fuzz-$$n.log; \
		grep -E 'number_of_executed_units|average_exec_per_sec' \
			build/fuzz/fuzz-$$n.log; \
	done

# The replay needs no libFuzzer: each target with tests/fuzz/replay-main.c
# and the sanitized build (build/san, ASan + UBSan), over its corpus.
$(B)/tests/fuzz-replay-%: tests/fuzz/fuzz-%.c tests/fuzz/replay-main.c $(B)/libvmtax.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

FUZZ_REPLAYS := $(FUZZ_NAMES:%=build/san/tests/fuzz-replay-%)
fuzz-replay:
	$(MAKE) $(SAN_ARGS) $(FUZZ_REPLAYS)
	@set -e; for n in $(FUZZ_NAMES); do \
		echo "== fuzz-$$n: $$(ls tests/fuzz/corpus/$$n | wc -l) inputs"; \
		build/san/tests/fuzz-replay-$$n tests/fuzz/corpus/$$n/* \
			>build/san/tests/replay-$$n.log 2>&1 || \
			{ tail -n 60 build/san/tests/replay-$$n.log; exit 1; }; \
	done

# The previous demo run is kept as runs/demo.prev (vmtax compare can use it).
demo: deps
	$(MAKE) all image-tiny
	@rm -rf runs/demo.prev; if [ -d runs/demo ]; then mv runs/demo runs/demo.prev; fi
	./$(B)/vmtax run configs/demo.ini --out runs/demo

bench: deps
	$(MAKE) all image-tiny $(B)/tests/bench-stats $(B)/tests/bench-symbolize
	sh tests/bench.sh

fmt:
	clang-format -i $(wildcard */*.c */*.h */*/*.c */*/*.h tests/unit/*.c)

clean:
	rm -rf build

# build/images holds debootstrap trees (etc/rc2.d ...): not dependency files.
-include $(shell find build -path build/images -prune -o -name '*.d' -type f -print 2>/dev/null)
