# SPDX-License-Identifier: GPL-2.0
# mmtune: wraps kbuild for the module and plain make for the tools.

KDIR    ?= /lib/modules/$(shell uname -r)/build
PREFIX  ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(CURDIR)/dkms.conf)
# What DKMS needs to build the module: the one list for make dkms-src and
# the mmtune-dkms package (/usr/src/mmtune-VERSION). module/'s folders
# (module/pfn_valid/) are the one module's too (module/Kbuild).
DKMS_FILES := dkms.conf Kbuild Makefile module/Kbuild \
	      $(sort $(filter-out %.mod.c,$(wildcard module/*.c module/*.h \
						    module/*/*.c module/*/*.h)))
DKMS_SRC ?= $(CURDIR)/build/dkms-src/mmtune-$(VERSION)
DEB_DIR := $(CURDIR)/build/deb

.PHONY: all module tools bpf-examples install install-boot dkms-src deb check check-vm check-deb \
	check-matrix check-debug check-trace check-bench bench bench-real bench-wall demo style clean help

all: module tools

module:
	@test -d "$(KDIR)" || { echo "mmtune: no kernel build tree at $(KDIR) (install linux-headers or pass KDIR=)" >&2; exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" MMTUNE_VERSION="$(VERSION)" modules

tools:
	$(MAKE) -C userspace VERSION="$(VERSION)"

# the BPF example programs (docs/bpf.md): clang and libbpf-dev's headers
bpf-examples:
	$(MAKE) -C examples/bpf

install: tools
	$(MAKE) -C userspace install PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" VERSION="$(VERSION)"

# The boot-time files (docs/admin-guide.md, "Settings that survive a
# reboot"): the
# systemd unit, and commented examples in /etc that an install never
# overwrites once there (they are the admin's).
install-boot:
	install -d "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSCONFDIR)/modprobe.d" \
		"$(DESTDIR)$(SYSCONFDIR)/modules-load.d"
	install -m 0644 dist/mmtune.service "$(DESTDIR)$(UNITDIR)/mmtune.service"
	test -e "$(DESTDIR)$(SYSCONFDIR)/modprobe.d/mmtune.conf" || \
		install -m 0644 dist/mmtune.modprobe.conf "$(DESTDIR)$(SYSCONFDIR)/modprobe.d/mmtune.conf"
	test -e "$(DESTDIR)$(SYSCONFDIR)/modules-load.d/mmtune.conf" || \
		install -m 0644 dist/mmtune.modules-load.conf "$(DESTDIR)$(SYSCONFDIR)/modules-load.d/mmtune.conf"

# The module's sources alone, for dkms add (dkms copies the whole tree it
# is given: `dkms add .` would copy tests, benches and tools too).
dkms-src:
	rm -rf "$(DKMS_SRC)"
	install -d "$(DKMS_SRC)/module"
	for f in $(DKMS_FILES); do install -D -m 0644 "$$f" "$(DKMS_SRC)/$$f" || exit 1; done
	@echo "mmtune: DKMS source in $(DKMS_SRC) (dkms add $(DKMS_SRC))"

# mmtune-dkms and mmtune-tools .debs in build/deb/, built from a copy of
# the files they need (dpkg-buildpackage writes next to the tree it builds).
deb:
	rm -rf "$(DEB_DIR)"
	install -d "$(DEB_DIR)/mmtune-$(VERSION)"
	cp -a --parents $(DKMS_FILES) README.md docs userspace dist debian "$(DEB_DIR)/mmtune-$(VERSION)/"
	cd "$(DEB_DIR)/mmtune-$(VERSION)" && dpkg-buildpackage -us -uc -b
	rm -rf "$(DEB_DIR)/mmtune-$(VERSION)"
	ls -l "$(DEB_DIR)"

check-deb:
	tests/deb.sh

check:
	tests/check.sh

# make check-vm T="knob policy": those VM suites alone (tests/check-vm.sh)
check-vm:
	tests/check-vm.sh $(T)

check-matrix:
	tests/check-matrix.sh $(CELLS)

# make check-debug DEBUG_KVER=7.3: the debug kernel of that Debian series
# (default 6.1; tests/debug/kernel.sh)
DEBUG_KVER ?= 6.1
check-debug:
	MMT_DEBUG_KVER=$(DEBUG_KVER) tests/check-debug.sh

check-trace:
	tests/check-trace.sh $(CELLS)

style:
	tests/style.sh "$(KDIR)"

check-bench:
	bench/insn.sh --short

bench:
	bench/insn.sh
	bench/walk.sh

bench-real:
	bench/real.sh

bench-wall:
	bench/wall.sh
	bench/wall-policy.sh

demo:
	tests/demo.sh

clean:
	-test -d "$(KDIR)" && $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean
	rm -f module/*.o module/*.ko module/*.mod module/*.mod.c module/.*.cmd \
	      module/*/*.o module/*/.*.cmd \
	      module/modules.order module/Module.symvers Module.symvers modules.order
	rm -f $(addprefix tests/vm/livepatch/,*.o *.ko *.mod *.mod.c .*.cmd modules.order Module.symvers)
	if [ -d userspace ]; then $(MAKE) -C userspace clean; fi
	rm -f examples/bpf/*.o

help:
	@echo "targets: all module tools install install-boot dkms-src deb check check-vm check-deb check-matrix check-debug check-trace check-bench bench bench-real bench-wall demo style clean"
	@echo "vars:    KDIR=$(KDIR) PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) SYSCONFDIR=$(SYSCONFDIR) UNITDIR=$(UNITDIR)"
