// SPDX-License-Identifier: GPL-2.0-only
/*
 * util.c - logging, the sysroot prefix, re-readable files, node sets, sizes,
 * time and percentiles.  See pn.h for the contracts.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pn.h"

enum pn_log_level pn_log_level = PN_LOG_INFO;
volatile sig_atomic_t pn_stop_signal;

static void vlog(const char *tag, const char *fmt, va_list ap)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "pnbench: %s%s\n", tag, msg);
}

static __thread char last_error[256];

const char *pn_last_error(void)
{
	return last_error;
}

void pn_clear_error(void)
{
	last_error[0] = '\0';
}

int pn_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	if (pn_log_level >= PN_LOG_ERROR) {
		va_start(ap, fmt);
		vlog("error: ", fmt, ap);
		va_end(ap);
	}
	return err;
}

void pn_warn(const char *fmt, ...)
{
	va_list ap;

	if (pn_log_level < PN_LOG_WARN)
		return;
	va_start(ap, fmt);
	vlog("warning: ", fmt, ap);
	va_end(ap);
}

void pn_info(const char *fmt, ...)
{
	va_list ap;

	if (pn_log_level < PN_LOG_INFO)
		return;
	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

void pn_debug(const char *fmt, ...)
{
	va_list ap;

	if (pn_log_level < PN_LOG_DEBUG)
		return;
	va_start(ap, fmt);
	vlog("debug: ", fmt, ap);
	va_end(ap);
}

static void stop_handler(int sig)
{
	pn_stop_signal = sig;
}

/*
 * INT, TERM, HUP (the terminal or SSH session closed) and QUIT all stop the
 * run the same way: cleanup, results marked incomplete, exit 128+N.  SIGPIPE
 * is ignored: a reader that went away (stdout piped into `head`) makes writes
 * fail with EPIPE, which never stops the cleanup or changes the exit code.
 */
int pn_install_stop_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stop_handler;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < PN_ARRAY_SIZE(sigs); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	/* No SA_RESTART: blocking reads and sleeps return EINTR so loops notice. */
	for (size_t i = 0; i < PN_ARRAY_SIZE(sigs); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -errno;
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		return -errno;
	return 0;
}

void pn_default_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };

	for (size_t i = 0; i < PN_ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
}

/* ---- sysroot ---- */

static char *sysroot;
static bool sysroot_init;

void pn_sysroot_set(const char *root)
{
	free(sysroot);
	sysroot = NULL;
	if (root && *root) {
		size_t n = strlen(root);

		sysroot = pn_strdup(root);
		while (n > 1 && sysroot[n - 1] == '/')
			sysroot[--n] = '\0';
	}
	sysroot_init = true;
}

const char *pn_sysroot(void)
{
	if (!sysroot_init)
		pn_sysroot_set(getenv("PNBENCH_SYSROOT"));
	return sysroot ? sysroot : "";
}

int pn_path(char *out, size_t outlen, const char *rel)
{
	int n = snprintf(out, outlen, "%s%s", pn_sysroot(), rel);

	if (n < 0 || (size_t)n >= outlen)
		return -ENAMETOOLONG;
	return 0;
}

int pn_open(const char *rel, int flags)
{
	char p[4096];
	int fd, ret = pn_path(p, sizeof(p), rel);

	if (ret)
		return ret;
	fd = open(p, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * A file read whole must be a regular file (proc and sysfs files are): a
 * FIFO or socket in a replayed tree would block or never end.  fd was
 * opened O_NONBLOCK so that even opening a FIFO does not wait.
 */
int pn_check_regular(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode) ||
	    S_ISBLK(st.st_mode))
		return pn_error(-EINVAL, "%s is not a regular file", path);
	return 0;
}

/* Read rel into buf; whole: -EFBIG (logged) when it does not fit. */
static ssize_t read_text(const char *rel, char *buf, size_t buflen, bool whole)
{
	char p[4096], more;
	size_t len = 0;
	int ret, fd = pn_open(rel, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return fd;
	pn_path(p, sizeof(p), rel);
	ret = buflen ? pn_check_regular(fd, p) : -EINVAL;
	if (ret) {
		close(fd);
		return ret;
	}
	while (len < buflen - 1) {
		ssize_t n = read(fd, buf + len, buflen - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (whole && len == buflen - 1 && read(fd, &more, 1) == 1) {
		close(fd);
		return pn_error(-EFBIG, "%s is larger than %zu bytes", p, buflen - 1);
	}
	close(fd);
	return (ssize_t)len;
}

ssize_t pn_read_text(const char *rel, char *buf, size_t buflen)
{
	return read_text(rel, buf, buflen, false);
}

ssize_t pn_read_whole(const char *rel, char *buf, size_t buflen)
{
	return read_text(rel, buf, buflen, true);
}

int pn_read_u64(const char *rel, uint64_t *val, bool hex)
{
	char buf[64], *end;
	ssize_t n = pn_read_text(rel, buf, sizeof(buf));
	unsigned long long v;

	if (n < 0)
		return (int)n;
	errno = 0;
	v = strtoull(buf, &end, hex ? 16 : 0);
	if (errno || end == buf || (*end && !isspace((unsigned char)*end)))
		return -EINVAL;
	*val = v;
	return 0;
}

int pn_write_text(const char *rel, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd = pn_open(rel, O_WRONLY);

	if (fd < 0)
		return fd;
	n = write(fd, text, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

bool pn_exists(const char *rel)
{
	char p[4096];
	struct stat st;

	return pn_path(p, sizeof(p), rel) == 0 && stat(p, &st) == 0;
}

/* ---- re-readable files ---- */

int pn_file_open(struct pn_file *f, const char *rel)
{
	char p[4096];
	int ret = pn_path(p, sizeof(p), rel);

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (ret)
		return ret;
	f->fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0)
		return -errno;
	ret = pn_check_regular(f->fd, p);
	if (ret) {
		close(f->fd);
		f->fd = -1;
		return ret;
	}
	f->cap = 4096;
	f->buf = pn_xmalloc(f->cap);
	f->buf[0] = '\0';
	f->path = pn_strdup(p);
	return 0;
}

int pn_file_read(struct pn_file *f)
{
	size_t len = 0;

	for (;;) {
		ssize_t n;

		if (len >= PN_FILE_MAX_BYTES)
			return pn_error(-EFBIG, "%s is larger than %d bytes", f->path,
					PN_FILE_MAX_BYTES);
		if (len > (1 << 20) && pn_should_stop())
			return -EINTR; /* a read this long is not a counter file: give up */
		if (f->cap - len < 2) {
			f->cap *= 2;
			f->buf = pn_xrealloc(f->buf, f->cap);
		}
		n = pread(f->fd, f->buf + len, f->cap - len - 1, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	f->buf[len] = '\0';
	f->len = len;
	return 0;
}

void pn_file_close(struct pn_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->buf);
	free(f->path);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

/* ---- node sets ---- */

void pn_nodeset_zero(struct pn_nodeset *s)
{
	memset(s, 0, sizeof(*s));
}

void pn_nodeset_set(struct pn_nodeset *s, int node)
{
	if (node >= 0 && node < PN_MAX_NODES)
		s->w[node / 64] |= 1ULL << (node % 64);
}

bool pn_nodeset_test(const struct pn_nodeset *s, int node)
{
	return node >= 0 && node < PN_MAX_NODES && (s->w[node / 64] >> (node % 64)) & 1;
}

int pn_nodeset_count(const struct pn_nodeset *s)
{
	int n = 0;

	for (size_t i = 0; i < PN_ARRAY_SIZE(s->w); i++)
		n += __builtin_popcountll(s->w[i]);
	return n;
}

bool pn_nodeset_empty(const struct pn_nodeset *s)
{
	return pn_nodeset_count(s) == 0;
}

int pn_nodeset_next(const struct pn_nodeset *s, int prev)
{
	for (int n = prev + 1; n < PN_MAX_NODES; n++) {
		uint64_t w = s->w[n / 64] >> (n % 64);

		if (!w) {
			n = (n / 64) * 64 + 63; /* skip the rest of this word */
			continue;
		}
		return n + __builtin_ctzll(w);
	}
	return -1;
}

void pn_nodeset_and(struct pn_nodeset *d, const struct pn_nodeset *a, const struct pn_nodeset *b)
{
	for (size_t i = 0; i < PN_ARRAY_SIZE(d->w); i++)
		d->w[i] = a->w[i] & b->w[i];
}

void pn_nodeset_or(struct pn_nodeset *d, const struct pn_nodeset *a, const struct pn_nodeset *b)
{
	for (size_t i = 0; i < PN_ARRAY_SIZE(d->w); i++)
		d->w[i] = a->w[i] | b->w[i];
}

void pn_nodeset_andnot(struct pn_nodeset *d, const struct pn_nodeset *a, const struct pn_nodeset *b)
{
	for (size_t i = 0; i < PN_ARRAY_SIZE(d->w); i++)
		d->w[i] = a->w[i] & ~b->w[i];
}

bool pn_nodeset_equal(const struct pn_nodeset *a, const struct pn_nodeset *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static int parse_node_id(const char **p, int *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v < 0 || v >= PN_MAX_NODES)
		return -EINVAL;
	*out = (int)v;
	*p = end;
	return 0;
}

int pn_nodeset_parse(struct pn_nodeset *s, const char *str)
{
	const char *p = str;

	pn_nodeset_zero(s);
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '\n')
		return 0;
	for (;;) {
		int a, b;

		if (parse_node_id(&p, &a))
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			if (parse_node_id(&p, &b) || b < a)
				return -EINVAL;
		}
		for (int n = a; n <= b; n++)
			pn_nodeset_set(s, n);
		if (*p == ',') {
			p++;
			continue;
		}
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		return *p ? -EINVAL : 0;
	}
}

int pn_nodeset_format(const struct pn_nodeset *s, char *buf, size_t len)
{
	size_t off = 0;
	int n = pn_nodeset_next(s, -1);

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	while (n >= 0) {
		int end = n, w;

		while (pn_nodeset_test(s, end + 1))
			end++;
		if (end == n)
			w = snprintf(buf + off, len - off, "%s%d", off ? "," : "", n);
		else
			w = snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", n, end);
		if (w < 0 || (size_t)w >= len - off)
			return -ENOSPC;
		off += (size_t)w;
		n = pn_nodeset_next(s, end);
	}
	return 0;
}

/* ---- time ---- */

uint64_t pn_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void pn_utc_iso8601(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pn_percentile(double *v, size_t n, double p)
{
	double rank, frac;
	size_t lo;

	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	if (p <= 0)
		return v[0];
	if (p >= 100)
		return v[n - 1];
	rank = p / 100.0 * (double)(n - 1);
	lo = (size_t)rank;
	frac = rank - (double)lo;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + frac * (v[lo + 1] - v[lo]);
}

double pn_median(double *v, size_t n)
{
	return pn_percentile(v, n, 50);
}

/* ---- allocation: failure is fatal, never silently degraded ---- */

void *pn_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("pnbench: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *pn_xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (!p) {
		fputs("pnbench: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *pn_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fputs("pnbench: out of memory\n", stderr);
		abort();
	}
	return q;
}

char *pn_strdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d) {
		fputs("pnbench: out of memory\n", stderr);
		abort();
	}
	return d;
}
