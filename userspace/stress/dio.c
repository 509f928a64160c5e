// SPDX-License-Identifier: GPL-2.0
/*
 * dio: O_DIRECT reads into a MAP_HUGETLB buffer, MB/s per
 * block size (64K and 1M by default): direct I/O into huge pages goes
 * through get_user_pages_fast on hugetlb memory.
 *
 * The huge pages it needs are reserved through /proc/sys/vm/nr_hugepages
 * and the old value is restored at exit (also on errors and Ctrl-C).  The
 * file needs a filesystem with O_DIRECT; tmpfs has it only from Linux
 * 6.6, so without it the file is put behind a loop device (autoclear:
 * it goes away with mmstress).  Neither: skip, exit status 77.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libmmtune.h"
#include "mmstress.h"

#define NR_HUGEPAGES "/proc/sys/vm/nr_hugepages"

struct dio_state {
	struct mms_file f;
	int dfd;
	char via[64];
	long long per_thread;
	long hps;
	long maxblock;
	size_t buflen;
	char **bufs;
	int nbufs;
	long count;
};

struct dio_arg {
	int fd;
	char *buf;
	long block;
	long long off, len;
	long passes;
	long long bytes;
	int err;
};

static void *dio_worker(void *p)
{
	struct dio_arg *a = p;

	for (long pass = 0; pass < a->passes && !mms_stop; pass++)
		for (long long o = 0; o < a->len && !mms_stop; o += a->block) {
			ssize_t n = pread(a->fd, a->buf, a->block, a->off + o);

			if (n != a->block) {
				a->err = n < 0 ? errno : EIO;
				return NULL;
			}
			a->bytes += n;
		}
	return NULL;
}

/* Does an O_DIRECT read of the largest block work on this fd? */
static int direct_ok(int fd, long block)
{
	void *b;
	int ok;

	if (posix_memalign(&b, 1 << 20, block))
		return 0;
	ok = pread(fd, b, block, 0) == block;
	free(b);
	return ok;
}

static int loop_attach(int filefd, char *dev, size_t len)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC), lfd = -1;

	if (ctl < 0)
		return -1;
	for (int tries = 0; tries < 8; tries++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);
		struct loop_info64 info;

		if (n < 0)
			break;
		snprintf(dev, len, "/dev/loop%d", n);
		lfd = open(dev, O_RDWR | O_CLOEXEC);
		if (lfd < 0)
			break;
		if (ioctl(lfd, LOOP_SET_FD, filefd) != 0) {
			close(lfd);
			lfd = -1;
			if (errno == EBUSY)
				continue;
			break;
		}
		memset(&info, 0, sizeof(info));
		info.lo_flags = LO_FLAGS_AUTOCLEAR;
		if (ioctl(lfd, LOOP_SET_STATUS64, &info) != 0) {
			ioctl(lfd, LOOP_CLR_FD, 0);
			close(lfd);
			lfd = -1;
		}
		break;
	}
	close(ctl);
	return lfd;
}

static void reserve_hugepages(long need)
{
	long nr, freep, rsvd;

	freep = mms_meminfo("HugePages_Free");
	rsvd = mms_meminfo("HugePages_Rsvd");
	if (freep < 0 || mms_read_long(NR_HUGEPAGES, &nr) != 0)
		mms_die(MMS_EXIT_SKIP, "dio: this kernel has no hugetlb pages; skipped");
	if (freep - rsvd >= need)
		return;
	mms_cleanup_set_hugepages(NR_HUGEPAGES, nr);
	if (mms_write_long(NR_HUGEPAGES, nr + need - (freep - rsvd)) != 0)
		mms_die(MMT_EXIT_FAIL, "dio: cannot raise %s to %ld: %s", NR_HUGEPAGES,
			nr + need - (freep - rsvd), strerror(errno));
	freep = mms_meminfo("HugePages_Free");
	rsvd = mms_meminfo("HugePages_Rsvd");
	if (freep - rsvd < need)
		mms_die(MMT_EXIT_FAIL, "dio: needs %ld free huge pages, the kernel gave %ld", need, freep - rsvd);
}

static int dio_setup(struct mms_ctx *c)
{
	const struct mms_opts *o = c->o;
	struct dio_state *s = calloc(1, sizeof(*s));
	long long sz = o->size_given ? o->size : 64LL << 20;
	long kb;
	int err;

	if (!s)
		return MMT_EXIT_FAIL;
	c->priv = s;
	s->dfd = -1;
	for (int i = 0; i < o->nblocks; i++)
		if (o->blocks[i] > s->maxblock)
			s->maxblock = o->blocks[i];
	s->per_thread = (sz + s->maxblock - 1) / s->maxblock * s->maxblock;
	s->count = o->count ? o->count : 1;
	kb = mms_meminfo("Hugepagesize");
	if (kb <= 0)
		mms_die(MMS_EXIT_SKIP, "dio: this kernel has no hugetlb pages; skipped");
	s->hps = kb * 1024;
	s->buflen = (s->maxblock + s->hps - 1) / s->hps * s->hps;

	err = mms_file_prepare(c, &s->f, s->per_thread * o->max_threads, 0, NULL, NULL, 1);
	if (err == -EINTR)
		return 0;
	if (err)
		return err;
	/* MMSTRESS_DIO_LOOP=1: always go through a loop device (for tests) */
	if (getenv("MMSTRESS_DIO_LOOP") && !s->f.is_blockdev)
		s->dfd = -1;
	else
		s->dfd = open(s->f.path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (s->dfd >= 0 && direct_ok(s->dfd, s->maxblock)) {
		snprintf(s->via, sizeof(s->via), "%s", s->f.is_blockdev ? "block device" : "file");
	} else {
		char dev[64];
		int lfd;

		if (s->dfd >= 0)
			close(s->dfd);
		s->dfd = -1;
		lfd = loop_attach(s->f.fd, dev, sizeof(dev));
		if (lfd < 0)
			mms_die(MMS_EXIT_SKIP, "dio: %s does not support O_DIRECT and no loop device is available "
				"(modprobe loop, or --file on a disk filesystem); skipped", s->f.path);
		mms_cleanup_add_fd(lfd);
		s->dfd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (s->dfd < 0 || !direct_ok(s->dfd, s->maxblock))
			mms_die(MMS_EXIT_SKIP, "dio: O_DIRECT reads fail on %s too; skipped", dev);
		snprintf(s->via, sizeof(s->via), "%s", dev);
		if (!c->o->quiet)
			mms_err("dio: note: no O_DIRECT on %s, reading it through %s", s->f.path, dev);
	}
	mms_cleanup_add_fd(s->dfd);

	reserve_hugepages((long)o->max_threads * (s->buflen / s->hps));
	s->bufs = calloc(o->max_threads, sizeof(*s->bufs));
	if (!s->bufs)
		return MMT_EXIT_FAIL;
	for (int t = 0; t < o->max_threads; t++) {
		s->bufs[t] = mmap(NULL, s->buflen, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (s->bufs[t] == MAP_FAILED) {
			s->bufs[t] = NULL;
			mms_die(MMT_EXIT_FAIL, "dio: mmap MAP_HUGETLB: %s", strerror(errno));
		}
		s->nbufs++;
		memset(s->bufs[t], 1, s->buflen);	/* fault in before measuring */
	}
	return 0;
}

static int dio_run(struct mms_ctx *c, int threads, long block, struct mms_result *r)
{
	struct dio_state *s = c->priv;
	struct dio_arg *a = calloc(threads, sizeof(*a)), warm;
	struct mms_meas m;
	int err = 0;
	long long bytes = 0;

	if (!a)
		return MMT_EXIT_FAIL;
	for (int t = 0; t < threads; t++) {
		a[t].fd = s->dfd;
		a[t].buf = s->bufs[t];
		a[t].block = block;
		a[t].off = s->per_thread * t;
		a[t].len = s->per_thread;
		a[t].passes = s->count;
	}
	warm = a[0];
	warm.len = block;
	warm.passes = 1;
	dio_worker(&warm);
	if (mms_run_threads(threads, dio_worker, a, sizeof(*a), 0, &m) != 0) {
		free(a);
		mms_err("dio: could not start %d threads", threads);
		return MMT_EXIT_FAIL;
	}
	for (int t = 0; t < threads; t++) {
		bytes += a[t].bytes;
		if (a[t].err)
			err = a[t].err;
	}
	free(a);
	if (err) {
		mms_err("dio: O_DIRECT read from %s: %s", s->via, strerror(err));
		return MMT_EXIT_FAIL;
	}
	mms_result_set(r, &m, bytes, 1e6, "MB/s");
	r->size = s->per_thread;
	return 0;
}

static void dio_teardown(struct mms_ctx *c)
{
	struct dio_state *s = c->priv;

	if (!s)
		return;
	for (int t = 0; t < s->nbufs; t++)
		munmap(s->bufs[t], s->buflen);
	free(s->bufs);
	mms_file_close(&s->f);
	free(s);
	c->priv = NULL;
	/* fds and nr_hugepages are restored by the cleanup at exit */
}

const struct mms_workload mms_wl_dio = {
	"dio", "O_DIRECT reads into a MAP_HUGETLB buffer, MB/s per block size",
	dio_setup, dio_run, dio_teardown, 1, "per thread",
};
