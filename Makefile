# vmtax - what virtualization costs a workload.
#
#   make            build vmtax, the guest agent and the workloads
#   make demo       install deps, build, run configs/demo.ini, print the table
#   make check      install deps, unit tests (ASan+UBSan) and integration tests
#   make bench      print the runner overhead, boot-to-hello time, peak RSS
#   make deps       install the Debian packages and start libvirtd/virtlogd
#   make image-tiny build the tiny initramfs guest
#   make clean
#
# Layout: every lib/*.c, host/*.c, reports/*.c and orchestrator/*.c file is
# picked up by wildcard; adding a source file needs no Makefile change.
# lib/ is also linked (statically) into the guest agent, so it may depend only
# on libc and jansson.

CC       ?= cc
B        ?= build
SAN      ?=
OPT      ?= -O2
PKGS     := libvirt libxml-2.0 jansson inih libkmod
WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
            -Wmissing-prototypes -Wstrict-prototypes
CPPFLAGS += -D_GNU_SOURCE -Ilib -Ihost -Ireports -Iorchestrator \
            -DVMTAX_VERSION='"$(VERSION)"'
CFLAGS   += -std=c11 -g $(OPT) $(WARN) $(SAN)
VERSION  := 0.1.0

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

LIB_SRCS    := $(wildcard lib/*.c)
HOST_SRCS   := $(wildcard host/*.c)
REPORT_SRCS := $(wildcard reports/*.c)
ORCH_SRCS   := $(filter-out orchestrator/main.c,$(wildcard orchestrator/*.c))
CORE_SRCS   := $(LIB_SRCS) $(HOST_SRCS) $(REPORT_SRCS) $(ORCH_SRCS)
CORE_OBJS   := $(CORE_SRCS:%.c=$(B)/obj/%.o)
WL_SRCS     := $(wildcard workloads/*.c)
WL_BINS     := $(WL_SRCS:workloads/%.c=build/bin/%)
UNIT_SRCS   := $(wildcard tests/unit/test-*.c)
UNIT_BINS   := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)

# The agent and the workloads are static and never sanitized: they run in the
# guest, and ASan does not support static linking.  They always live in build/.
AGENT_SRCS  := guest-image/agent.c $(LIB_SRCS)
AGENT_CFLAGS = -std=c11 -g -O2 $(WARN) -D_GNU_SOURCE -Ilib \
               -DVMTAX_VERSION='"$(VERSION)"' $(AGENT_EXTRA)

KVER     ?= $(shell ls /boot/vmlinuz-* 2>/dev/null | sed 's,.*/vmlinuz-,,' | sort -V | tail -1)
TINY     := build/images/tiny-$(KVER).cpio.gz

.PHONY: all check check-unit check-integration demo bench deps clean \
        image-tiny fmt san tools
all: $(B)/vmtax build/bin/vmtax-agent $(WL_BINS)

tools: build/bin/vmtax-agent $(WL_BINS)

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Everything but main() goes into one archive, so a unit test links only the
# objects it uses.
$(B)/libvmtax.a: $(CORE_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/vmtax: $(B)/obj/orchestrator/main.o $(B)/libvmtax.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

build/bin/vmtax-agent: $(AGENT_SRCS) $(wildcard lib/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(AGENT_CFLAGS) -static -o $@ $(AGENT_SRCS) -ljansson

build/bin/vmtax-agent-test: $(AGENT_SRCS) $(wildcard lib/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(AGENT_CFLAGS) -DVMTAX_AGENT_TEST -static -o $@ $(AGENT_SRCS) -ljansson

build/bin/%: workloads/%.c $(wildcard workloads/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 $(WARN) -D_GNU_SOURCE -static -o $@ $< -lm

$(B)/tests/test-%: tests/unit/test-%.c $(B)/libvmtax.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -Itests/unit -o $@ $^ \
		$(PKG_LIBS) -lcmocka -lm

image-tiny: $(TINY)
$(TINY): guest-image/mkinitramfs-tiny.sh build/bin/vmtax-agent \
	 build/bin/vmtax-agent-test $(WL_BINS)
	@mkdir -p $(dir $@)
	sh guest-image/mkinitramfs-tiny.sh $(KVER) $@ build/bin

deps:
	sh .ci/deps.sh

# One sanitized pass: unit tests, then the shell tests with the sanitized
# vmtax.  The static agent and workloads are built normally.
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all
check: deps
	$(MAKE) tools $(TINY)
	$(MAKE) B=build/san SAN="$(SANFLAGS)" OPT=-O1 build/san/vmtax \
		$(UNIT_BINS:$(B)/%=build/san/%)
	$(MAKE) B=build/san check-unit check-integration

check-unit:
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

check-integration:
	@VMTAX=$(abspath $(B)/vmtax) TINY=$(abspath $(TINY)) \
		sh tests/run-shell-tests.sh

# The previous demo run is kept as runs/demo.prev (vmtax compare can use it).
demo: deps all $(TINY)
	@rm -rf runs/demo.prev; if [ -d runs/demo ]; then mv runs/demo runs/demo.prev; fi
	./$(B)/vmtax run configs/demo.ini --out runs/demo

bench: deps all $(TINY)
	sh tests/bench.sh

fmt:
	clang-format -i $(wildcard */*.c */*.h tests/unit/*.c)

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
