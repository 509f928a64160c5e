// SPDX-License-Identifier: GPL-2.0
/*
 * insncount: a QEMU TCG plugin (QEMU 7.2 API, no glib) that counts the
 * guest instructions a benchmark executes between markers, user mode and
 * kernel mode apart, for bench/insn.sh.
 *
 *   qemu-system-... -plugin libinsncount.so,out=FILE[,profile=FILE]
 *
 * Markers are no-ops the benchmark (bench/faultbench.c --markers) executes
 * in user mode; they are recognised by their bytes at translation time:
 *   x86_64   nopl 0x4d4d54xx(%rax)  0f 1f 80 xx 54 4d 4d  (a multi-byte
 *            NOP with a displacement no compiler emits)
 *   aarch64  hint #0x70 + k         (unallocated hint space: a NOP)
 * with k / xx = 0 ON (count from here), 1 OFF (stop counting), 2 EMIT
 * (append "emit SEQ vcpu V user U kernel K host_ns T" to out=FILE and
 * reset; T is the host's wall time between ON and OFF: a secondary,
 * noisy figure).  Counting is
 * per vCPU: only the vCPU that executed ON counts (pin the benchmark).
 * User or kernel is the instruction's virtual address half (top bit set:
 * kernel), which holds on x86_64 and aarch64 (TTBR1).  Whole translation
 * blocks are counted when they start, so a block left early by a fault
 * counts in full: the counts are deterministic, not exact.
 *
 * profile=FILE: at each EMIT, also append "# emit SEQ" and one line
 * "VADDR NINSNS EXECS" per kernel block executed while counting, so that
 * the host can attribute kernel instructions to symbols (/proc/kallsyms).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_VCPUS 64
#define PROF_BITS 18		/* 256 Ki distinct kernel blocks */

enum { M_ON, M_OFF, M_EMIT, M_NONE };

struct vcpu {
	int on;
	uint64_t n[2];		/* [0] user, [1] kernel */
	uint64_t ns, t0;	/* host time counting, and since when */
} __attribute__((aligned(64)));

struct prof {
	uint64_t vaddr;
	uint64_t ninsns;
	uint64_t execs;
};

static struct vcpu vcpus[MAX_VCPUS];
static FILE *out, *prof_out;
static struct prof *prof;
static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t seq;
static int aarch64;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int marker(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	size_t len = qemu_plugin_insn_size(insn);
	uint32_t w;

	if (aarch64) {
		if (len != 4)
			return M_NONE;
		memcpy(&w, b, 4);
		/* HINT #imm: 0xd503201f | imm << 5 */
		if ((w & ~(0x7fu << 5)) != 0xd503201f)
			return M_NONE;
		w = (w >> 5) & 0x7f;
		return w >= 0x70 && w <= 0x72 ? (int)(w - 0x70) : M_NONE;
	}
	if (len != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80 ||
	    b[4] != 0x54 || b[5] != 0x4d || b[6] != 0x4d)
		return M_NONE;
	return b[3] <= 2 ? b[3] : M_NONE;
}

static void emit(unsigned int cpu)
{
	struct vcpu *v = &vcpus[cpu];
	size_t i;

	seq++;
	fprintf(out, "emit %" PRIu64 " vcpu %u user %" PRIu64 " kernel %" PRIu64
		" host_ns %" PRIu64 "\n", seq, cpu, v->n[0], v->n[1], v->ns);
	fflush(out);
	v->n[0] = v->n[1] = v->ns = 0;
	if (!prof)
		return;
	pthread_mutex_lock(&prof_lock);
	fprintf(prof_out, "# emit %" PRIu64 "\n", seq);
	for (i = 0; i < (1u << PROF_BITS); i++) {
		if (!prof[i].execs)
			continue;
		fprintf(prof_out, "%016" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
			prof[i].vaddr, prof[i].ninsns, prof[i].execs);
		prof[i].execs = 0;
	}
	fflush(prof_out);
	pthread_mutex_unlock(&prof_lock);
}

static void on_marker(unsigned int cpu, void *udata)
{
	int m = (int)(uintptr_t)udata;

	if (cpu >= MAX_VCPUS)
		return;
	if (m == M_ON && !vcpus[cpu].on) {
		vcpus[cpu].on = 1;
		vcpus[cpu].t0 = now_ns();
	} else if (m == M_OFF && vcpus[cpu].on) {
		vcpus[cpu].on = 0;
		vcpus[cpu].ns += now_ns() - vcpus[cpu].t0;
	} else if (m == M_EMIT)
		emit(cpu);
}

/* udata: ninsns << 1 | kernel */
static void on_tb(unsigned int cpu, void *udata)
{
	uintptr_t u = (uintptr_t)udata;

	if (cpu < MAX_VCPUS && vcpus[cpu].on)
		vcpus[cpu].n[u & 1] += u >> 1;
}

static void on_tb_prof(unsigned int cpu, void *udata)
{
	struct prof *p = udata;

	if (cpu < MAX_VCPUS && vcpus[cpu].on) {
		vcpus[cpu].n[1] += p->ninsns;
		p->execs++;
	}
}

/* the record of kernel block (vaddr, n); NULL if the table is full */
static struct prof *prof_slot(uint64_t vaddr, uint64_t n)
{
	uint64_t mask = (1u << PROF_BITS) - 1, h, i;
	struct prof *p = NULL;

	h = (vaddr ^ (vaddr >> 17) ^ n * 0x9e3779b97f4a7c15ull) & mask;
	pthread_mutex_lock(&prof_lock);
	for (i = 0; i <= mask; i++, h = (h + 1) & mask) {
		p = &prof[h];
		if (p->ninsns == 0) {
			p->vaddr = vaddr;
			p->ninsns = n;
			break;
		}
		if (p->vaddr == vaddr && p->ninsns == n)
			break;
	}
	pthread_mutex_unlock(&prof_lock);
	return i <= mask ? p : NULL;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	int kernel = (int64_t)vaddr < 0, m;
	struct prof *p = NULL;

	if (prof && kernel)
		p = prof_slot(vaddr, n);
	if (p)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb_prof,
						     QEMU_PLUGIN_CB_NO_REGS, p);
	else
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb,
						     QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)(n << 1 | kernel));
	if (kernel)
		return;		/* markers run in user mode */
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		m = marker(insn);
		if (m != M_NONE)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)m);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	fclose(out);
	if (prof_out)
		fclose(prof_out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *outf = NULL, *proff = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			outf = argv[i] + 4;
		} else if (!strncmp(argv[i], "profile=", 8)) {
			proff = argv[i] + 8;
		} else {
			fprintf(stderr, "insncount: unknown argument %s\n", argv[i]);
			return 1;
		}
	}
	if (!strcmp(info->target_name, "aarch64")) {
		aarch64 = 1;
	} else if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insncount: target %s not supported\n",
			info->target_name);
		return 1;
	}
	if (!outf) {
		fprintf(stderr, "insncount: out=FILE is required\n");
		return 1;
	}
	out = fopen(outf, "a");
	if (!out) {
		perror(outf);
		return 1;
	}
	if (proff) {
		prof_out = fopen(proff, "a");
		prof = calloc(1u << PROF_BITS, sizeof(*prof));
		if (!prof_out || !prof) {
			perror(proff);
			return 1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
