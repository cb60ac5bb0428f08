// SPDX-License-Identifier: GPL-2.0-only
/*
 * pgowner.c - page_owner forensics.  See pgowner.h.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgowner.h"
#include "core/lib/pn.h"

void pn_pgowner_init(struct pn_pgowner *o, const struct pn_pfnrange *r, size_t nr,
		     const uint32_t *xpids, size_t nxpids)
{
	memset(o, 0, sizeof(*o));
	o->r = r;
	o->nr = nr;
	o->xpids = xpids;
	o->nxpids = nxpids;
}

void pn_pgowner_free(struct pn_pgowner *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->s[i].stack);
	free(o->s);
	memset(o, 0, sizeof(*o));
}

static bool in_ranges(const struct pn_pgowner *o, uint64_t pfn)
{
	for (size_t i = 0; i < o->nr; i++)
		if (pfn >= o->r[i].start_pfn && pfn < o->r[i].end_pfn)
			return true;
	return false;
}

static bool is_xpid(const struct pn_pgowner *o, int32_t pid)
{
	for (size_t i = 0; i < o->nxpids; i++)
		if ((int32_t)o->xpids[i] == pid)
			return true;
	return false;
}

/* What the first line says of an allocation. */
struct alloc {
	unsigned order;
	uint64_t gfp, pfn;
	int32_t tgid;
	char comm[16], gfp_names[160];
};

/* "Page allocated via order 0, mask 0x..(NAMES), pid P, tgid T (COMM), ts N ns" */
static int parse_head(const char *l, size_t len, struct alloc *a)
{
	char line[512], *names, *pid, *comm, *ts;
	int pid_v, tgid = -1;

	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	memcpy(line, l, len);
	line[len] = '\0';
	if (sscanf(line, "Page allocated via order %u, mask %" SCNx64, &a->order, &a->gfp) != 2)
		return -EINVAL;
	names = strchr(line, '(');
	pid = strstr(line, "), pid ");
	if (!names || !pid || pid < names)
		return -EINVAL;
	*pid = '\0';
	snprintf(a->gfp_names, sizeof(a->gfp_names), "%s", names + 1);
	if (sscanf(pid + 3, "pid %d, tgid %d (", &pid_v, &tgid) != 2)
		return -EINVAL;
	a->tgid = tgid;
	comm = strchr(pid + 2, '(');
	ts = comm ? strstr(comm, "), ts ") : NULL; /* a comm may hold ')' */
	for (char *t = ts; t; t = strstr(t + 1, "), ts "))
		ts = t;
	if (!comm || !ts)
		return -EINVAL;
	*ts = '\0';
	snprintf(a->comm, sizeof(a->comm), "%s", comm + 1);
	return 0;
}

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

static void add_stack(struct pn_pgowner *o, const struct alloc *a, const char *st, size_t stlen)
{
	uint64_t h = fnv(st, stlen);
	struct pn_pgowner_stack *s;
	int64_t pages = 1LL << (a->order < 20 ? a->order : 20);

	for (size_t i = 0; i < o->n; i++) {
		s = &o->s[i];
		if (s->hash == h && strlen(s->stack) == stlen && !memcmp(s->stack, st, stlen)) {
			s->pages += pages;
			s->allocs++;
			return;
		}
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 16;
		o->s = pn_xrealloc(o->s, o->cap * sizeof(*o->s));
	}
	s = &o->s[o->n++];
	memset(s, 0, sizeof(*s));
	s->stack = pn_xmalloc(stlen + 1);
	memcpy(s->stack, st, stlen);
	s->stack[stlen] = '\0';
	s->hash = h;
	s->pages = pages;
	s->allocs = 1;
	s->gfp = a->gfp;
	s->pfn = a->pfn;
	s->order = a->order;
	s->pid = a->tgid;
	memcpy(s->comm, a->comm, sizeof(s->comm));
	memcpy(s->gfp_names, a->gfp_names, sizeof(s->gfp_names));
}

int64_t pn_pgowner_feed(struct pn_pgowner *o, const char *rec, size_t len)
{
	const char *end = rec + len, *l2, *st, *p;
	char pfnline[64], stack[4096];
	size_t sl = 0;
	struct alloc a = { 0 };

	l2 = memchr(rec, '\n', len);
	if (!l2 || parse_head(rec, (size_t)(l2 - rec), &a)) {
		o->malformed++;
		return -EINVAL;
	}
	l2++;
	snprintf(pfnline, sizeof(pfnline), "%.*s", (int)(end - l2 < 63 ? end - l2 : 63), l2);
	if (sscanf(pfnline, "PFN %" SCNx64, &a.pfn) != 1) {
		o->malformed++;
		return -EINVAL;
	}
	o->records++;
	if (!in_ranges(o, a.pfn))
		return (int64_t)a.pfn;
	o->pages += 1LL << (a.order < 20 ? a.order : 20);
	if (strstr(a.gfp_names, "__GFP_PRIVATE") || is_xpid(o, a.tgid)) {
		o->explicit_pages += 1LL << (a.order < 20 ? a.order : 20);
		return (int64_t)a.pfn;
	}
	/* the frames: the lines that begin with a space, joined by '\n' */
	st = memchr(l2, '\n', (size_t)(end - l2));
	for (p = st ? st + 1 : end; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n > 1 && p[0] == ' ' && sl + n < sizeof(stack)) {
			if (sl)
				stack[sl++] = '\n';
			memcpy(stack + sl, p + 1, n - 1);
			sl += n - 1;
		}
		p += n + 1;
	}
	add_stack(o, &a, stack, sl);
	return (int64_t)a.pfn;
}

/* Feed every blank-line separated record in buf[0..len); returns the bytes
 * consumed (an unfinished record stays) and the last pfn in *last. */
static size_t feed_all(struct pn_pgowner *o, const char *buf, size_t len, bool final, int64_t *last)
{
	size_t off = 0;

	while (off < len) {
		const char *e = memmem(buf + off, len - off, "\n\n", 2);
		size_t n;

		if (!e && !final)
			break;
		n = e ? (size_t)(e - (buf + off)) + 1 : len - off;
		if (n > 1)
			*last = pn_pgowner_feed(o, buf + off, n);
		off += n + (e ? 1 : 0);
	}
	return off;
}

/* Read fd from where it is until EOF or (stop_pfn) a record at or past it. */
static int read_stream(struct pn_pgowner *o, int fd, uint64_t stop_pfn)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = pn_xmalloc(cap);
	int64_t last = -1;
	int ret = 0;

	for (;;) {
		ssize_t n;

		if (len == cap) {
			cap *= 2;
			buf = pn_xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		len += (size_t)n;
		size_t used = feed_all(o, buf, len, n == 0, &last);

		memmove(buf, buf + used, len - used);
		len -= used;
		if (o->records >= PN_PGOWNER_MAX_RECORDS && n) {
			o->truncated = true;
			break;
		}
		if (n == 0 || (last >= 0 && (uint64_t)last >= stop_pfn))
			break;
	}
	free(buf);
	return ret;
}

int pn_pgowner_read(struct pn_pgowner *o, char *why, size_t whylen)
{
	bool live = !*pn_sysroot();
	char none[1];
	int ret = 0, fd;

	if (!why || !whylen) {
		why = none;
		whylen = sizeof(none);
	}
	why[0] = '\0';
	fd = pn_open(PN_PGOWNER_PATH, O_RDONLY);
	if (fd < 0) {
		snprintf(why, whylen,
			 "no %s (a kernel without CONFIG_PAGE_OWNER, or debugfs not mounted)",
			 PN_PGOWNER_PATH);
		return fd;
	}
	/* live: the file's position is a pfn, each range is read from its start */
	for (size_t i = 0; i < (live ? o->nr : 1) && !ret && !o->truncated; i++) {
		if (live && lseek(fd, (off_t)o->r[i].start_pfn, SEEK_SET) < 0)
			ret = -errno;
		if (!ret)
			ret = read_stream(o, fd, live ? o->r[i].end_pfn : UINT64_MAX);
	}
	close(fd);
	if (ret == -EINVAL)
		snprintf(why, whylen, "page_owner is off (boot with page_owner=on)");
	else if (ret)
		snprintf(why, whylen, "reading %s: %s", PN_PGOWNER_PATH, strerror(-ret));
	return ret;
}

static int cmp_pages(const void *x, const void *y)
{
	const struct pn_pgowner_stack *a = x, *b = y;

	return a->pages > b->pages ? -1 : a->pages < b->pages;
}

cJSON *pn_pgowner_json(struct pn_pgowner *o, size_t top)
{
	cJSON *j = cJSON_CreateObject(), *arr;
	char hex[24];

	cJSON_AddStringToObject(j, "source",
				PN_PGOWNER_PATH " at phase end: pages allocated on the node then");
	cJSON_AddNumberToObject(j, "pages", (double)o->pages);
	cJSON_AddNumberToObject(j, "explicit_pages", (double)o->explicit_pages);
	cJSON_AddNumberToObject(j, "general_pages", (double)(o->pages - o->explicit_pages));
	cJSON_AddNumberToObject(j, "stacks_total", (double)o->n);
	cJSON_AddNumberToObject(j, "malformed_records", (double)o->malformed);
	/* stopped early: the totals cover the first records only */
	cJSON_AddBoolToObject(j, "truncated", o->truncated);
	if (o->n)
		qsort(o->s, o->n, sizeof(*o->s), cmp_pages);
	arr = cJSON_AddArrayToObject(j, "top_stacks");
	for (size_t i = 0; i < o->n && i < top; i++) {
		const struct pn_pgowner_stack *s = &o->s[i];
		cJSON *e = cJSON_CreateObject(), *fr = cJSON_AddArrayToObject(e, "stack");
		const char *p = s->stack;

		cJSON_AddNumberToObject(e, "pages", (double)s->pages);
		cJSON_AddNumberToObject(e, "allocations", (double)s->allocs);
		cJSON_AddStringToObject(e, "gfp", s->gfp_names);
		snprintf(hex, sizeof(hex), "0x%" PRIx64, s->pfn);
		cJSON_AddStringToObject(e, "first_pfn", hex);
		cJSON_AddNumberToObject(e, "first_order", s->order);
		cJSON_AddNumberToObject(e, "first_pid", s->pid);
		cJSON_AddStringToObject(e, "first_comm", s->comm);
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			char f[256];

			snprintf(f, sizeof(f), "%.*s", (int)(n < 255 ? n : 255), p);
			cJSON_AddItemToArray(fr, cJSON_CreateString(f));
			p += n + (nl ? 1 : 0);
		}
		cJSON_AddItemToArray(arr, e);
	}
	return j;
}
