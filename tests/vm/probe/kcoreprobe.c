// SPDX-License-Identifier: GPL-2.0
/*
 * kcoreprobe: read the running kernel's memory through /proc/kcore, for
 * the VM tests (the matrix guests have no python or gdb).
 *
 *   kcoreprobe ADDR [LEN]
 *
 * Prints LEN bytes (default 4) at the kernel virtual address ADDR (hex, as
 * in /proc/kallsyms) as one line of hex digits, e.g. "f30f1efa".  The
 * address is mapped to a file offset through kcore's ELF program headers
 * (the PT_LOAD whose [p_vaddr, p_vaddr + p_memsz) holds it).  Exit 1 if the
 * address is in no segment or cannot be read, 2 on bad usage.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n == (ssize_t)len ? 0 : -1;
}

/* The file offset of @addr, or -1. */
static int64_t offset_of(int fd, uint64_t addr, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned int i;

	if (read_at(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "kcoreprobe: /proc/kcore is not ELF64\n");
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (read_at(fd, &ph, sizeof(ph),
			    eh.e_phoff + (uint64_t)i * eh.e_phentsize))
			return -1;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr - ph.p_vaddr + len > ph.p_memsz)
			continue;
		return (int64_t)(ph.p_offset + (addr - ph.p_vaddr));
	}
	fprintf(stderr, "kcoreprobe: %#llx is in no kcore segment\n",
		(unsigned long long)addr);
	return -1;
}

int main(int argc, char **argv)
{
	unsigned char buf[64];
	uint64_t addr;
	size_t len = 4, i;
	int64_t off;
	char *end;
	int fd;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: kcoreprobe ADDR [LEN]\n");
		return 2;
	}
	errno = 0;
	addr = strtoull(argv[1], &end, 16);
	if (errno || *end || end == argv[1])
		return fprintf(stderr, "kcoreprobe: bad address '%s'\n", argv[1]), 2;
	if (argc == 3) {
		len = strtoul(argv[2], &end, 0);
		if (*end || !len || len > sizeof(buf))
			return fprintf(stderr, "kcoreprobe: LEN 1..%zu\n", sizeof(buf)), 2;
	}
	fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0) {
		perror("kcoreprobe: /proc/kcore");
		return 1;
	}
	off = offset_of(fd, addr, len);
	if (off < 0 || read_at(fd, buf, len, (uint64_t)off)) {
		if (off >= 0)
			perror("kcoreprobe: read");
		close(fd);
		return 1;
	}
	close(fd);
	for (i = 0; i < len; i++)
		printf("%02x", buf[i]);
	printf("\n");
	return 0;
}
