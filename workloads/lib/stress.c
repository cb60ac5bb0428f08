// SPDX-License-Identifier: GPL-2.0-only
/*
 * stress.c - building blocks of general memory pressure (stress.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/sys/procfs.h"
#include "core/api/result.h"
#include "stress.h"
#include "core/sys/topology.h"

#define IO_CHUNK (1u << 20)

/* -------------------------------------------------------------- memhog */

struct pn_memhog_thread {
	pthread_t tid;
	struct pn_memhog *h;
	unsigned idx;
	int cpu;
	uint64_t pages;
};

static bool hog_stop(const struct pn_memhog *h)
{
	return h->stop || (h->stopfn && h->stopfn(h->arg));
}

static void *hog_main(void *arg)
{
	struct pn_memhog_thread *t = arg;
	struct pn_memhog *h = t->h;
	size_t npages = h->bytes / h->page_bytes;
	size_t step = npages / h->nthreads;
	struct timespec pause = { 0, 1000000L };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	for (size_t i = 0; !hog_stop(h); i++) {
		size_t pg = ((size_t)t->idx * step + i) % npages;

		((volatile char *)h->addr)[pg * h->page_bytes] += 1;
		t->pages++;
		/* A duty cycle: the workload's other kinds share these CPUs. */
		if (!(i % 1024))
			nanosleep(&pause, NULL);
	}
	return NULL;
}

int pn_memhog_start(struct pn_memhog *h, size_t bytes, bool thp, unsigned nthreads, pn_stop_fn stop,
		    const void *arg)
{
	long psz = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(h, 0, sizeof(*h));
	h->page_bytes = psz > 0 ? (size_t)psz : 4096;
	h->stopfn = stop;
	h->arg = arg;
	h->nthreads = nthreads ? nthreads : 1;
	h->addr = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h->addr == MAP_FAILED) {
		h->addr = NULL;
		return pn_error(-errno, "mmap %zu bytes: %s", bytes, strerror(errno));
	}
	h->bytes = bytes;
	if (thp && madvise(h->addr, bytes, MADV_HUGEPAGE))
		pn_warn("madvise(MADV_HUGEPAGE): %s", strerror(errno));
	for (size_t o = 0; o < bytes && !hog_stop(h); o += h->page_bytes) {
		h->addr[o] = 1;
		h->faulted_bytes += h->page_bytes;
	}
	h->t = pn_xcalloc(h->nthreads, sizeof(*h->t));
	for (unsigned i = 0; i < h->nthreads; i++) {
		struct pn_memhog_thread *t = &h->t[i];

		*t = (struct pn_memhog_thread){ .h = h,
						.idx = i,
						.cpu = ncpu > 0 ? (int)(i % ncpu) : 0 };
		if (pthread_create(&t->tid, NULL, hog_main, t))
			return pn_error(-EAGAIN, "cannot start memhog thread %u", i);
		h->nstarted++;
	}
	return 0;
}

uint64_t pn_memhog_stop(struct pn_memhog *h)
{
	uint64_t pages = 0;

	h->stop = 1;
	for (unsigned i = 0; i < h->nstarted; i++)
		pthread_join(h->t[i].tid, NULL);
	h->nstarted = 0;
	for (unsigned i = 0; h->t && i < h->nthreads; i++)
		pages += h->t[i].pages;
	return pages;
}

void pn_memhog_free(struct pn_memhog *h)
{
	pn_memhog_stop(h);
	free(h->t);
	if (h->addr)
		munmap(h->addr, h->bytes);
	memset(h, 0, sizeof(*h));
}

/* ------------------------------------------------------- pattern files */

/* Byte i of the pattern of seed: cheap, position-dependent, seed-dependent. */
static void pattern(uint8_t *buf, size_t len, uint64_t off, uint64_t seed)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t x = (off + i) * 0x9e3779b97f4a7c15ULL ^ seed;

		x ^= x >> 29;
		memcpy(buf + i, &x, len - i < 8 ? len - i : 8);
	}
}

int pn_file_fill(const char *path, uint64_t bytes, uint64_t seed, uint64_t *written)
{
	uint8_t *buf = pn_xmalloc(IO_CHUNK);
	int fd, ret = 0;

	*written = 0;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(buf);
		return pn_error(-errno, "%s: %s", path, strerror(errno));
	}
	while (*written < bytes) {
		size_t n = bytes - *written < IO_CHUNK ? (size_t)(bytes - *written) : IO_CHUNK;
		ssize_t w;

		pattern(buf, n, *written, seed);
		w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = pn_error(w < 0 ? -errno : -ENOSPC, "write %s: %s", path,
				       w < 0 ? strerror(errno) : "short write");
			break;
		}
		*written += (uint64_t)w;
	}
	if (!ret && fsync(fd))
		ret = pn_error(-errno, "fsync %s: %s", path, strerror(errno));
	close(fd);
	free(buf);
	return ret;
}

int pn_file_verify(const char *path, uint64_t bytes, uint64_t seed, bool drop, uint64_t *read_bytes,
		   uint64_t *bad)
{
	uint8_t *buf = pn_xmalloc(IO_CHUNK), *want = pn_xmalloc(IO_CHUNK);
	int fd, ret = 0;

	*read_bytes = 0;
	*bad = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = pn_error(-errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (drop && (fdatasync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)))
		pn_warn("%s: cannot drop its cached pages: %s", path, strerror(errno));
	while (*read_bytes < bytes) {
		size_t n =
			bytes - *read_bytes < IO_CHUNK ? (size_t)(bytes - *read_bytes) : IO_CHUNK;
		ssize_t r = read(fd, buf, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = pn_error(-errno, "read %s: %s", path, strerror(errno));
			break;
		}
		if (r == 0)
			break;
		pattern(want, (size_t)r, *read_bytes, seed);
		if (memcmp(buf, want, (size_t)r) != 0)
			for (size_t i = 0; i < (size_t)r; i++)
				*bad += buf[i] != want[i];
		*read_bytes += (uint64_t)r;
	}
	*bad += bytes - *read_bytes; /* missing bytes are wrong too */
	close(fd);
out:
	free(buf);
	free(want);
	return ret;
}

/* ------------------------------------------------------------- trees */

#define TREE_FILES_PER_DIR 64

static int mkdir_counted(const char *path, struct pn_tree_stats *made)
{
	if (mkdir(path, 0700) == 0) {
		made->dirs++;
		return 0;
	}
	if (errno == EEXIST)
		return 0;
	return pn_error(-errno, "mkdir %s: %s", path, strerror(errno));
}

/* root/cK/d1/d2/.../d<depth-1>: one chain per leaf; returns its length. */
static int leaf_dir(const char *root, uint64_t k, unsigned depth, char *path, size_t len,
		    struct pn_tree_stats *made)
{
	int n = snprintf(path, len, "%s/c%llu", root, (unsigned long long)k);
	int ret = mkdir_counted(path, made);

	for (unsigned d = 1; !ret && d < depth; d++) {
		if ((size_t)n + 8 >= len)
			return pn_error(-ENAMETOOLONG, "tree under %s: depth %u is too deep", root,
					depth);
		n += snprintf(path + n, len - (size_t)n, "/d%u", d);
		ret = mkdir_counted(path, made);
	}
	return ret ? ret : n;
}

int pn_tree_make(const char *root, uint64_t files, unsigned depth, size_t file_bytes,
		 pn_stop_fn stop, const void *arg, struct pn_tree_stats *made)
{
	char *path = pn_xmalloc(PATH_MAX);
	char data[256];
	int ret;

	memset(made, 0, sizeof(*made));
	memset(data, 'p', sizeof(data));
	if (file_bytes > sizeof(data))
		file_bytes = sizeof(data);
	ret = mkdir_counted(root, made);
	for (uint64_t k = 0; !ret && k * TREE_FILES_PER_DIR < files; k++) {
		int n = leaf_dir(root, k, depth ? depth : 1, path, PATH_MAX, made);

		if (n < 0) {
			ret = n;
			break;
		}
		if (stop && stop(arg))
			break;
		for (uint64_t i = 0; i < TREE_FILES_PER_DIR && made->files < files; i++) {
			int fd;

			snprintf(path + n, PATH_MAX - (size_t)n, "/f%llu", (unsigned long long)i);
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			if (fd < 0) {
				ret = pn_error(-errno, "create %s: %s", path, strerror(errno));
				break;
			}
			if (file_bytes && write(fd, data, file_bytes) == (ssize_t)file_bytes)
				made->bytes += file_bytes;
			close(fd);
			made->files++;
		}
	}
	free(path);
	return ret;
}

/* nftw has no user argument: the removal runs one at a time (a workload's
 * main thread), so a file-scope counter is enough. */
static struct pn_tree_stats *rm_stats;
static int rm_err;

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_DP) {
		if (rmdir(path) == 0) {
			rm_stats->dirs++;
			return 0;
		}
	} else if (unlink(path) == 0) {
		rm_stats->files++;
		rm_stats->bytes += (uint64_t)st->st_size;
		return 0;
	}
	rm_err = pn_error(-errno, "remove %s: %s", path, strerror(errno));
	return 1;
}

int pn_tree_remove(const char *root, struct pn_tree_stats *removed)
{
	memset(removed, 0, sizeof(*removed));
	rm_stats = removed;
	rm_err = 0;
	if (nftw(root, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0 && errno != ENOENT)
		return pn_error(-errno, "remove %s: %s", root, strerror(errno));
	rm_stats = NULL;
	return rm_err;
}

/* --------------------------------------------------------- descriptors */

static int fds_room(struct pn_fds *f, uint64_t more)
{
	struct rlimit rl;
	uint64_t want = f->n + more + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return pn_error(-errno, "getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
	if (rl.rlim_cur < want) {
		if (rl.rlim_max < want)
			return pn_error(
				-EMFILE,
				"%llu descriptors needed, RLIMIT_NOFILE's hard limit is %llu",
				(unsigned long long)want, (unsigned long long)rl.rlim_max);
		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return pn_error(-errno, "setrlimit(RLIMIT_NOFILE, %llu): %s",
					(unsigned long long)want, strerror(errno));
	}
	if (f->n + more > f->cap) {
		f->cap = f->n + more;
		f->fd = pn_xrealloc(f->fd, f->cap * sizeof(*f->fd));
	}
	return 0;
}

/* Queue up to len bytes on a non-blocking descriptor; returns bytes queued. */
static size_t queue(int fd, const char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t w = write(fd, buf + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* EAGAIN: the buffer is full */
		done += (size_t)w;
	}
	return done;
}

int pn_fds_sockets(struct pn_fds *f, uint64_t nsockets, size_t bytes_each)
{
	char *buf = pn_xcalloc(1, bytes_each ? bytes_each : 1);
	int ret = fds_room(f, nsockets + 1);

	for (uint64_t i = 0; !ret && i < (nsockets + 1) / 2; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv)) {
			ret = pn_error(-errno, "socketpair (%llu made): %s",
				       (unsigned long long)f->sockets, strerror(errno));
			break;
		}
		f->fd[f->n++] = sv[0];
		f->fd[f->n++] = sv[1];
		f->sockets += 2;
		f->queued_bytes += queue(sv[0], buf, bytes_each);
	}
	free(buf);
	return ret;
}

int pn_fds_pipes(struct pn_fds *f, uint64_t npipes, size_t bytes_each)
{
	char *buf = pn_xcalloc(1, bytes_each ? bytes_each : 1);
	int ret = fds_room(f, 2 * npipes);

	for (uint64_t i = 0; !ret && i < npipes; i++) {
		int p[2];

		if (pipe2(p, O_NONBLOCK | O_CLOEXEC)) {
			ret = pn_error(-errno, "pipe (%llu made): %s", (unsigned long long)f->pipes,
				       strerror(errno));
			break;
		}
		f->fd[f->n++] = p[0];
		f->fd[f->n++] = p[1];
		f->pipes++;
		f->queued_bytes += queue(p[1], buf, bytes_each);
	}
	free(buf);
	return ret;
}

void pn_fds_close(struct pn_fds *f)
{
	for (size_t i = 0; i < f->n; i++)
		close(f->fd[i]);
	free(f->fd);
	memset(f, 0, sizeof(*f));
}

/* -------------------------------------------------------------- ticker */

int pn_ticker_start(struct pn_ticker *t, const char *rel, const char *text, uint64_t interval_ms)
{
	memset(t, 0, sizeof(*t));
	t->counts = mmap(NULL, 2 * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t->counts == MAP_FAILED) {
		t->counts = NULL;
		return pn_error(-errno, "ticker %s: mmap: %s", rel, strerror(errno));
	}
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		int err = -errno;

		munmap((void *)t->counts, 2 * sizeof(uint64_t));
		t->counts = NULL;
		t->pid = 0;
		return pn_error(err, "ticker %s: fork: %s", rel, strerror(-err));
	}
	if (t->pid == 0) {
		struct timespec ts = { (time_t)(interval_ms / 1000),
				       (long)(interval_ms % 1000) * 1000000L };

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;) {
			t->counts[0]++;
			if (pn_write_text(rel, text) == 0)
				t->counts[1]++;
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

void pn_ticker_stop(struct pn_ticker *t)
{
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		while (waitpid(t->pid, NULL, 0) < 0 && errno == EINTR)
			;
		t->pid = 0;
	}
	if (t->counts) {
		t->started = t->counts[0];
		t->done = t->counts[1];
		munmap((void *)t->counts, 2 * sizeof(uint64_t));
		t->counts = NULL;
	}
}

/* ------------------------------------------------------------ counters */

struct kv_want {
	const char *const *keys;
	size_t n;
	int64_t *vals;
};

static int kv_pick(void *arg, const char *key, int64_t val)
{
	struct kv_want *k = arg;

	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(key, k->keys[i]))
			k->vals[i] = val;
	return 0;
}

static int kv_file(const char *rel, const char *const *keys, size_t n, int64_t *vals)
{
	struct kv_want k = { keys, n, vals };
	char *buf = NULL;
	size_t len;
	int ret;

	for (size_t i = 0; i < n; i++)
		vals[i] = -1;
	ret = pn_read_all(rel, &buf, &len);
	if (ret)
		return ret;
	ret = pn_parse_kv(buf, kv_pick, &k);
	free(buf);
	return ret;
}

int pn_vmstat_read(const char *const *keys, size_t n, int64_t *vals)
{
	return kv_file("/proc/vmstat", keys, n, vals);
}

int pn_vmstat_report(struct pn_res *r, const char *metric, const char *const *keys, size_t n,
		     const int64_t *before)
{
	int64_t *now = pn_xcalloc(n ? n : 1, sizeof(*now));
	int ret = pn_vmstat_read(keys, n, now);

	for (size_t i = 0; !ret && i < n; i++) {
		char lab[96];

		if (before[i] < 0 || now[i] < 0)
			continue;
		snprintf(lab, sizeof(lab), "counter=%s", keys[i]);
		pn_res_metric(r, metric, lab, (double)(now[i] - before[i]));
	}
	free(now);
	return ret;
}

int pn_kv_file_get(const char *rel, const char *key, int64_t *val)
{
	const char *keys[1] = { key };
	int ret = kv_file(rel, keys, 1, val);

	if (!ret && *val < 0)
		ret = -ENOENT;
	return ret;
}

int pn_general_available(const struct pn_topology *t, uint64_t *bytes, uint64_t *private_free_bytes)
{
	int ret = pn_mem_available(bytes);

	*private_free_bytes = 0;
	if (ret || !t)
		return ret;
	for (int i = 0; i < t->nnodes; i++) {
		struct pn_nodemem m;

		if (!t->nodes[i].has_private_memory || pn_nodemem_read(t->nodes[i].id, &m) ||
		    m.free <= 0)
			continue;
		*private_free_bytes += (uint64_t)m.free;
	}
	*bytes = *bytes > *private_free_bytes ? *bytes - *private_free_bytes : 0;
	return 0;
}

static int swap_cb(void *arg, const char *key, int64_t val)
{
	if (!strcmp(key, "SwapTotal"))
		*(uint64_t *)arg = val > 0 ? (uint64_t)val : 0;
	return 0;
}

int pn_swap_total(uint64_t *bytes)
{
	char *buf = NULL;
	size_t len;
	int ret;

	*bytes = 0;
	ret = pn_read_all_max("/proc/meminfo", &buf, &len, PN_FILE_MAX_BYTES);
	if (!ret)
		ret = pn_parse_meminfo(buf, swap_cb, bytes);
	free(buf);
	return ret;
}
