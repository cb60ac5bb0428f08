// SPDX-License-Identifier: GPL-2.0-only
/*
 * procfs_maps.c - parsers of the per-process files /proc/PID/numa_maps and
 * /proc/PID/maps, and a reader for files of any size.  See procfs.h for the
 * contracts.  (Kept apart from procfs.c, which holds the node and system
 * counter files, so that neither grows past the size rule.)
 *
 * numa_maps line, as fs/proc/task_mmu.c show_numa_map() prints it:
 *   ADDR POLICY [file=PATH | heap | stack] [huge] [anon=N] [dirty=N] [mapped=N]
 *        [mapmax=N] [swapcache=N] [active=N] [writeback=N] [N<node>=N ...]
 *        kernelpagesize_kB=N
 * The counters and kernelpagesize_kB are printed only when the VMA has
 * pages.  POLICY is one word ("default", "bind=static:0-1") except
 * "prefer (many)" and "weighted interleave", which have two.  PATH may hold
 * spaces but never '=' or a newline (seq_path() escapes "\n\t= " as octal),
 * so the first token holding '=' after it ends it.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfile.h"
#include "procfs.h"

int pn_read_all_max(const char *rel, char **out, size_t *len, size_t max)
{
	size_t cap = 65536, n = 0;
	char *buf, p[4096];
	int ret, fd = pn_open(rel, O_RDONLY | O_NONBLOCK);

	*out = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	snprintf(p, sizeof(p), "%s%s", pn_sysroot(), rel);
	ret = pn_check_regular(fd, p);
	if (ret) {
		close(fd);
		return ret;
	}
	buf = pn_xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n > max || (n > (1 << 20) && pn_should_stop())) {
			ret = n > max ? pn_error(-EFBIG, "%s is larger than %zu bytes", p, max)
				      : -EINTR; /* asked to stop: not a /proc file this long */
			close(fd);
			free(buf);
			return ret;
		}
		if (cap - n < 2) {
			cap *= 2;
			buf = pn_xrealloc(buf, cap);
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			close(fd);
			free(buf);
			return ret;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int pn_read_all(const char *rel, char **out, size_t *len)
{
	return pn_read_all_max(rel, out, len, PN_READ_ALL_MAX_BYTES);
}

void pn_proc_pid_path(char *buf, size_t len, pid_t pid, const char *file)
{
	if (pid)
		snprintf(buf, len, "/proc/%d/%s", (int)pid, file);
	else
		snprintf(buf, len, "/proc/self/%s", file);
}

/* ---- tokens of one line [p, e) ---- */

static const char *tok_end(const char *p, const char *e)
{
	while (p < e && *p != ' ')
		p++;
	return p;
}

static bool tok_is(const char *p, const char *te, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(te - p) == n && !memcmp(p, word, n);
}

/* Unsigned decimal [p, te) exactly; -EINVAL on anything else or overflow. */
static int dec_u64(const char *p, const char *te, uint64_t *v)
{
	*v = 0;
	if (p == te)
		return -EINVAL;
	for (; p < te; p++) {
		if (*p < '0' || *p > '9' || __builtin_mul_overflow(*v, 10, v) ||
		    __builtin_add_overflow(*v, (uint64_t)(*p - '0'), v))
			return -EINVAL;
	}
	return 0;
}

static int hex_u64(const char *p, const char *te, uint64_t *v)
{
	*v = 0;
	if (p == te || te - p > 16)
		return -EINVAL;
	for (; p < te; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else
			return -EINVAL;
		*v = *v << 4 | d;
	}
	return 0;
}

static const char *skip_one_space(const char *p, const char *e)
{
	return p < e && *p == ' ' ? p + 1 : p;
}

/* ---- numa_maps ---- */

struct nm_line {
	struct pn_numa_maps *out;
	struct pn_nodeset seen; /* N<node>= tokens of this line */
	uint64_t page_bytes;	/* from kernelpagesize_kB=, the last token */
	uint64_t anon_pages, total_bytes;
	bool has_file, huge, has_pages, has_page_size;
};

/* "N<node>=<pages>": added to the node at once (the page size is known
 * before the line is walked; a failure discards the whole result). */
static int nm_node(struct nm_line *l, const char *p, const char *eq, const char *te)
{
	struct pn_numa_maps *out = l->out;
	uint64_t node, pages, b;

	if (dec_u64(p + 1, eq, &node) || node >= PN_MAX_NODES || dec_u64(eq + 1, te, &pages) ||
	    pn_nodeset_test(&l->seen, (int)node) || !l->page_bytes)
		return -EINVAL; /* bad, the same node twice, or no page size */
	pn_nodeset_set(&l->seen, (int)node);
	pn_nodeset_set(&out->nodes, (int)node);
	if (__builtin_mul_overflow(pages, l->page_bytes, &b) ||
	    __builtin_add_overflow(out->node_bytes[node], b, &out->node_bytes[node]) ||
	    __builtin_add_overflow(l->total_bytes, b, &l->total_bytes))
		return -EINVAL;
	l->has_pages = true;
	return 0;
}

/* One "key=value" counter token. */
static int nm_counter(struct nm_line *l, const char *p, const char *te)
{
	const char *eq = memchr(p, '=', (size_t)(te - p));
	uint64_t v;

	if (!eq || eq == p)
		return -EINVAL;
	if (p[0] == 'N' && eq - p >= 2 && p[1] >= '0' && p[1] <= '9')
		return nm_node(l, p, eq, te);
	for (const char *k = p; k < eq; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || *k == '_'))
			return -EINVAL;
	if (dec_u64(eq + 1, te, &v))
		return -EINVAL;
	if (tok_is(p, eq, "kernelpagesize_kB")) {
		if (l->has_page_size) /* twice; the value was read by nm_page_size() */
			return -EINVAL;
		l->has_page_size = true;
	} else if (tok_is(p, eq, "anon")) {
		l->anon_pages = v;
	}
	/* dirty, mapped, mapmax, swapcache, active, writeback and counters of
	 * later kernels: validated, not needed */
	return 0;
}

/* The page size, from the line's last token (0 when the VMA has no pages). */
static int nm_page_size(const char *p, const char *e, uint64_t *bytes)
{
	static const char key[] = "kernelpagesize_kB=";
	const size_t klen = sizeof(key) - 1;
	const char *t = e;
	uint64_t kb;

	*bytes = 0;
	while (t > p && t[-1] != ' ')
		t--;
	if (t == p || (size_t)(e - t) <= klen || memcmp(t, key, klen) != 0)
		return 0;
	if (dec_u64(t + klen, e, &kb) || kb == 0 || kb > (1u << 30))
		return -EINVAL;
	*bytes = kb * 1024;
	return 0;
}

/* After "file=": the path runs to the first token that holds '='. */
static const char *nm_skip_path(const char *p, const char *e)
{
	const char *eq = memchr(p, '=', (size_t)(e - p));
	const char *end = eq ? eq : e;

	if (eq) {
		while (end > p && end[-1] != ' ')
			end--;
		if (end > p)
			end--; /* the space before the counter */
	}
	/* a hugetlb file: " huge" right before the counters or at the end */
	if (end - p >= 5 && !memcmp(end - 5, " huge", 5))
		end -= 5;
	return end;
}

static int nm_end(const struct nm_line *l)
{
	struct pn_numa_maps *out = l->out;
	uint64_t anon;

	if (l->has_pages != l->has_page_size)
		return -EINVAL; /* node counters without a page size, or the reverse */
	if (__builtin_mul_overflow(l->anon_pages, l->page_bytes, &anon) || anon > l->total_bytes)
		return -EINVAL; /* more anon pages than pages */
	if (__builtin_add_overflow(out->total_bytes, l->total_bytes, &out->total_bytes))
		return -EINVAL;
	/* each part is <= total_bytes, so the sums below cannot overflow */
	if (l->huge)
		out->hugetlb_bytes += l->total_bytes;
	else
		out->anon_bytes += anon;
	if (!l->huge && l->has_file)
		out->file_bytes += l->total_bytes - anon;
	out->vmas++;
	return 0;
}

static int nm_parse_line(struct pn_numa_maps *out, const char *p, const char *e)
{
	struct nm_line l = { .out = out };
	const char *te = tok_end(p, e);
	uint64_t addr;

	if (hex_u64(p, te, &addr) || te == e || nm_page_size(p, e, &l.page_bytes))
		return -EINVAL;
	/* the policy */
	p = te + 1;
	te = tok_end(p, e);
	if (te == p)
		return -EINVAL;
	if ((tok_is(p, te, "prefer") && e - te > 7 && !memcmp(te, " (many)", 7)) ||
	    tok_is(p, te, "weighted"))
		te = tok_end(te + 1, e);
	for (p = skip_one_space(te, e); p < e; p = skip_one_space(te, e)) {
		te = tok_end(p, e);
		if (te == p)
			return -EINVAL; /* two spaces, or a trailing one */
		if (te - p >= 5 && !memcmp(p, "file=", 5)) {
			if (l.has_file || l.has_pages)
				return -EINVAL;
			l.has_file = true;
			te = nm_skip_path(p + 5, e);
			if (te == p + 5)
				return -EINVAL;
		} else if (tok_is(p, te, "heap") || tok_is(p, te, "stack")) {
			if (l.has_pages)
				return -EINVAL;
		} else if (tok_is(p, te, "huge")) {
			l.huge = true;
		} else if (nm_counter(&l, p, te)) {
			return -EINVAL;
		}
	}
	return nm_end(&l);
}

int pn_parse_numa_maps(const char *buf, size_t len, struct pn_numa_maps *out)
{
	const char *p = buf, *end = buf + len;

	memset(out, 0, sizeof(*out));
	if (!buf || (len && end[-1] != '\n') || memchr(buf, '\0', len))
		return -EINVAL; /* cut (a partial read) or not text */
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		int ret = nm_parse_line(out, p, e);

		if (ret) {
			memset(out, 0, sizeof(*out));
			return ret;
		}
		p = e + 1;
	}
	return 0;
}

int pn_numa_maps_read(pid_t pid, struct pn_numa_maps *out)
{
	char rel[64], *buf;
	size_t len;
	int ret;

	memset(out, 0, sizeof(*out));
	pn_proc_pid_path(rel, sizeof(rel), pid, "numa_maps");
	ret = pn_read_all(rel, &buf, &len);
	if (ret)
		return ret;
	ret = pn_parse_numa_maps(buf, len, out);
	free(buf);
	return ret;
}

/* ---- maps ---- */

static int maps_line(const char *p, const char *e, struct pn_vma *v)
{
	const char *te = memchr(p, '-', (size_t)(e - p));
	uint64_t x;

	memset(v, 0, sizeof(*v));
	if (!te || hex_u64(p, te, &v->start))
		return -EINVAL;
	p = te + 1;
	te = tok_end(p, e);
	if (hex_u64(p, te, &v->end) || v->end <= v->start || e - te < 6)
		return -EINVAL;
	p = te + 1;
	if (e - p < 5 || p[4] != ' ' || (p[0] != 'r' && p[0] != '-') ||
	    (p[1] != 'w' && p[1] != '-') || (p[2] != 'x' && p[2] != '-') ||
	    (p[3] != 'p' && p[3] != 's'))
		return -EINVAL;
	v->prot = (p[0] == 'r' ? PN_VMA_READ : 0) | (p[1] == 'w' ? PN_VMA_WRITE : 0) |
		  (p[2] == 'x' ? PN_VMA_EXEC : 0) | (p[3] == 's' ? PN_VMA_SHARED : 0);
	p += 5;
	te = tok_end(p, e);
	if (hex_u64(p, te, &v->offset) || te == e)
		return -EINVAL;
	p = te + 1; /* dev: "fe:01" (hex, major:minor) */
	te = tok_end(p, e);
	{
		const char *c = memchr(p, ':', (size_t)(te - p));

		if (!c || hex_u64(p, c, &x) || x > UINT32_MAX)
			return -EINVAL;
		v->dev_major = (unsigned)x;
		if (hex_u64(c + 1, te, &x) || x > UINT32_MAX)
			return -EINVAL;
		v->dev_minor = (unsigned)x;
	}
	if (te == e)
		return -EINVAL;
	p = te + 1;
	te = tok_end(p, e);
	if (dec_u64(p, te, &v->inode))
		return -EINVAL;
	while (te < e && *te == ' ')
		te++;
	/* the path (may hold spaces), truncated to fit: only for messages and
	 * for the bracketed names ("[heap]", "[vsyscall]") */
	snprintf(v->name, sizeof(v->name), "%.*s", (int)(e - te), te);
	return 0;
}

int pn_parse_maps(const char *buf, size_t len, struct pn_maps *out)
{
	const char *p = buf, *end = buf + len;
	size_t cap = 0;

	out->n = 0;
	out->v = NULL;
	if (!buf || (len && end[-1] != '\n') || memchr(buf, '\0', len))
		return -EINVAL;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));

		if (out->n == cap) {
			cap = cap ? cap * 2 : 64;
			out->v = pn_xrealloc(out->v, cap * sizeof(*out->v));
		}
		if (maps_line(p, e, &out->v[out->n]) ||
		    (out->n && out->v[out->n].start < out->v[out->n - 1].end)) {
			pn_maps_free(out);
			return -EINVAL; /* malformed, or not in address order */
		}
		out->n++;
		p = e + 1;
	}
	return 0;
}

int pn_maps_read(pid_t pid, struct pn_maps *out)
{
	char rel[64], *buf;
	size_t len;
	int ret;

	out->n = 0;
	out->v = NULL;
	pn_proc_pid_path(rel, sizeof(rel), pid, "maps");
	ret = pn_read_all(rel, &buf, &len);
	if (ret)
		return ret;
	ret = pn_parse_maps(buf, len, out);
	free(buf);
	return ret;
}

void pn_maps_free(struct pn_maps *m)
{
	free(m->v);
	m->v = NULL;
	m->n = 0;
}
