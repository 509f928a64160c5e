# SPDX-License-Identifier: GPL-2.0
# mmtune: wraps kbuild for the module and plain make for the tools.

KDIR    ?= /lib/modules/$(shell uname -r)/build
PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(CURDIR)/dkms.conf)

.PHONY: all module tools install check check-matrix check-debug bench demo style clean help

all: module tools

module:
	@test -d "$(KDIR)" || { echo "mmtune: no kernel build tree at $(KDIR) (install linux-headers or pass KDIR=)" >&2; exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" MMTUNE_VERSION="$(VERSION)" modules

tools:
	$(MAKE) -C userspace VERSION="$(VERSION)"

install: tools
	$(MAKE) -C userspace install PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" VERSION="$(VERSION)"

check:
	tests/check.sh

check-matrix:
	tests/check-matrix.sh $(CELLS)

check-debug:
	tests/check-debug.sh

style:
	tests/style.sh "$(KDIR)"

bench:
	tests/bench.sh
	tests/bench-policy.sh

demo:
	tests/demo.sh

clean:
	-test -d "$(KDIR)" && $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean
	rm -f module/*.o module/*.ko module/*.mod module/*.mod.c module/.*.cmd \
	      module/modules.order module/Module.symvers Module.symvers modules.order
	$(MAKE) -C userspace clean

help:
	@echo "targets: all module tools install check check-matrix check-debug bench demo style clean"
	@echo "vars:    KDIR=$(KDIR) PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)"
