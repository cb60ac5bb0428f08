// SPDX-License-Identifier: GPL-2.0-only
/*
 * cfile.c - positional fast path over counter files for the collectors.
 * See cfile.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfile.h"
#include "procfs.h"

/* ---- line templates ---- */

static inline bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static inline bool keyish(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_' || c == '(' || c == ')';
}

void pn_cfile_lines_add(struct pn_cfile_lines *t, const char *s, size_t len,
			enum pn_cfile_line_kind kind, int col)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->l = pn_xrealloc(t->l, t->cap * sizeof(*t->l));
	}
	if (t->text_len + len + 1 > t->text_cap) {
		t->text_cap = (t->text_len + len + 1) * 2;
		t->text = pn_xrealloc(t->text, t->text_cap);
	}
	memcpy(t->text + t->text_len, s, len);
	t->text[t->text_len + len] = '\0';
	t->l[t->n].off = (uint32_t)t->text_len;
	t->l[t->n].len = (uint32_t)len;
	t->l[t->n].col = col;
	t->l[t->n].kind = (uint8_t)kind;
	t->n++;
	t->text_len += len + 1;
}

size_t pn_cfile_lines_prefix_len(const char *p, const char *e)
{
	const char *q = e;

	while (q > p && blank(q[-1]))
		q--;
	if (q - p >= 2 && q[-2] == 'k' && q[-1] == 'B') {
		q -= 2;
		while (q > p && blank(q[-1]))
			q--;
	}
	if (q == p || q[-1] < '0' || q[-1] > '9')
		return 0;
	while (q > p && q[-1] >= '0' && q[-1] <= '9')
		q--;
	if (q > p && q[-1] == '-')
		q--;
	if (q == p || (!blank(q[-1]) && q[-1] != ':'))
		return 0;
	while (q > p && blank(q[-1]))
		q--;
	return (size_t)(q - p);
}

int pn_cfile_lines_match(const struct pn_cfile_lines *t, const char *buf, size_t len, int64_t *row)
{
	const char *p = buf, *end = buf + len;
	size_t i = 0;

	for (size_t k = 0; k < t->n; k++)
		if (t->l[k].kind == PN_CFILE_LINE_ADD)
			row[t->l[k].col] = 0;
	while (p < end) {
		const struct pn_tl *l;
		const char *q;
		int64_t v;

		/* Leading blanks are part of the templates; empty lines are
		 * skipped (a line of blanks does not match: the slow path copes). */
		if (*p == '\n') {
			p++;
			continue;
		}
		if (i >= t->n)
			return 1;
		l = &t->l[i++];
		if ((size_t)(end - p) < l->len || memcmp(p, t->text + l->off, l->len) != 0)
			return 1;
		q = p + l->len;
		if (l->kind == PN_CFILE_LINE_TEXT) {
			while (blank(*q))
				q++;
			if (*q != '\n' && *q != '\0')
				return 1;
			p = *q ? q + 1 : q;
			continue;
		}
		/* "a" must not match the line "ab 1": a prefix ending in a key
		 * character must be followed by something else. */
		if (l->len && keyish(t->text[l->off + l->len - 1]) && keyish(*q))
			return 1;
		while (blank(*q))
			q++;
		q = pn_procfs_parse_num(q, &v);
		if (!q)
			return 1;
		while (blank(*q))
			q++;
		if (q[0] == 'k' && q[1] == 'B') {
			if (__builtin_mul_overflow(v, (int64_t)1024, &v))
				return 1;
			q += 2;
			while (blank(*q))
				q++;
		}
		if (*q != '\n' && *q != '\0')
			return 1;
		if (l->col >= 0) {
			if (l->kind == PN_CFILE_LINE_ADD) {
				if (__builtin_add_overflow(row[l->col], v, &row[l->col]))
					return 1;
			} else {
				row[l->col] = v;
			}
		}
		p = *q ? q + 1 : q;
	}
	return i == t->n ? 0 : 1;
}

void pn_cfile_lines_free(struct pn_cfile_lines *t)
{
	free(t->l);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

/* ---- counter files ---- */

struct cf_build {
	struct pn_cfile *cf;
	size_t cap, keys_len, keys_cap;
};

static int cf_collect_key(void *arg, const char *key, int64_t val)
{
	struct cf_build *b = arg;
	struct pn_cfile *cf = b->cf;
	size_t len = strlen(key);

	(void)val;
	if (cf->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		cf->ent = pn_xrealloc(cf->ent, b->cap * sizeof(*cf->ent));
	}
	if (b->keys_len + len + 1 > b->keys_cap) {
		b->keys_cap = (b->keys_len + len + 1) * 2;
		cf->keys = pn_xrealloc(cf->keys, b->keys_cap);
	}
	memcpy(cf->keys + b->keys_len, key, len + 1);
	cf->ent[cf->n].key_off = (uint32_t)b->keys_len;
	cf->ent[cf->n].key_len = (uint32_t)len;
	cf->ent[cf->n].col = -1;
	cf->n++;
	b->keys_len += len + 1;
	return 0;
}

/* One template per non-empty line; line i carries key i (the strict parser
 * reported the keys in line order). */
static int cf_build_templates(struct pn_cfile *cf)
{
	const char *p = cf->f.buf;
	size_t i = 0;

	while (*p) {
		const char *e = strchr(p, '\n'), *k = p;
		size_t plen;

		if (!e)
			e = p + strlen(p);
		while (k < e && blank(*k))
			k++;
		if (k < e) {
			plen = pn_cfile_lines_prefix_len(p, e);
			if (!plen || i >= cf->n)
				return pn_error(-EINVAL, "%s: unexpected line layout", cf->f.path);
			pn_cfile_lines_add(&cf->tl, p, plen, PN_CFILE_LINE_NUM, cf->ent[i++].col);
		}
		p = *e ? e + 1 : e;
	}
	if (i != cf->n)
		return pn_error(-EINVAL, "%s: unexpected line layout", cf->f.path);
	return 0;
}

int pn_cfile_open(struct pn_cfile *cf, const char *rel, enum pn_cfile_fmt fmt, int node,
		  int (*col_for)(void *arg, const char *key), void *arg)
{
	struct cf_build b = { .cf = cf };
	int ret;

	memset(cf, 0, sizeof(*cf));
	cf->fmt = fmt;
	cf->node = node;
	ret = pn_file_open(&cf->f, rel);
	if (ret)
		return pn_error(ret, "%s%s: %s", pn_sysroot(), rel, strerror(-ret));
	ret = pn_file_read(&cf->f);
	if (ret) {
		pn_error(ret, "%s: read: %s", cf->f.path, strerror(-ret));
		goto err;
	}
	if (fmt == PN_CFILE_NODE_MEMINFO)
		ret = pn_parse_node_meminfo(cf->f.buf, node, cf_collect_key, &b);
	else
		ret = pn_parse_kv(cf->f.buf, cf_collect_key, &b);
	if (ret) {
		pn_error(-EINVAL, "%s: malformed counter file", cf->f.path);
		ret = -EINVAL;
		goto err;
	}
	if (cf->n == 0) {
		ret = pn_error(-EINVAL, "%s: no counters", cf->f.path);
		goto err;
	}
	for (size_t i = 0; i < cf->n; i++) {
		int col = col_for(arg, cf->keys + cf->ent[i].key_off);

		if (col < -1) {
			ret = col;
			goto err;
		}
		cf->ent[i].col = col;
	}
	cf->seen = pn_xcalloc((cf->n + 63) / 64, sizeof(*cf->seen));
	ret = cf_build_templates(cf);
	if (ret)
		goto err;
	return 0;
err:
	pn_cfile_close(cf);
	return ret;
}

/*
 * One line at p: key [*k, *k + *klen) and value.  Returns the start of the
 * next line, or NULL if the line is malformed.  *klen == 0: an empty line.
 * Only as strict as needed to be safe: open() validated the layout.
 */
static const char *cf_line(const struct pn_cfile *cf, const char *p, const char **k, size_t *klen,
			   int64_t *v)
{
	const char *q = p;

	while (blank(*q))
		q++;
	if (*q == '\n' || *q == '\0') {
		*klen = 0;
		return *q ? q + 1 : q;
	}
	if (cf->fmt == PN_CFILE_NODE_MEMINFO) {
		int64_t n;

		if (q[0] != 'N' || q[1] != 'o' || q[2] != 'd' || q[3] != 'e')
			return NULL;
		q += 4;
		while (blank(*q))
			q++;
		q = pn_procfs_parse_num(q, &n);
		if (!q || n != cf->node)
			return NULL;
		while (blank(*q))
			q++;
		*k = q;
		while (*q && *q != ':' && *q != '\n')
			q++;
		if (*q != ':')
			return NULL;
		*klen = (size_t)(q - *k);
		q++;
	} else {
		*k = q;
		while (*q && !blank(*q) && *q != '\n')
			q++;
		*klen = (size_t)(q - *k);
	}
	while (blank(*q))
		q++;
	q = pn_procfs_parse_num(q, v);
	if (!q || *klen == 0)
		return NULL;
	while (blank(*q))
		q++;
	if (q[0] == 'k' && q[1] == 'B') {
		if (__builtin_mul_overflow(*v, (int64_t)1024, v))
			return NULL;
		q += 2;
		while (blank(*q))
			q++;
	}
	if (*q == '\n')
		return q + 1;
	return *q ? NULL : q;
}

/* The layout changed since open(): look every line up by key. */
static int cf_sample_slow(struct pn_cfile *cf, int64_t *row)
{
	const char *p = cf->f.buf;
	size_t words = (cf->n + 63) / 64;

	memset(cf->seen, 0, words * sizeof(*cf->seen));
	while (*p) {
		const char *k;
		size_t klen;
		int64_t v;

		p = cf_line(cf, p, &k, &klen, &v);
		if (!p)
			return pn_error(-EINVAL, "%s: malformed line", cf->f.path);
		if (!klen)
			continue;
		for (size_t i = 0; i < cf->n; i++) {
			/* the first entry of that key not seen yet: a key that
			 * occurs twice keeps its order */
			if (cf->ent[i].key_len != klen || (cf->seen[i / 64] >> (i % 64) & 1) ||
			    memcmp(cf->keys + cf->ent[i].key_off, k, klen) != 0)
				continue;
			if (cf->ent[i].col >= 0)
				row[cf->ent[i].col] = v;
			cf->seen[i / 64] |= 1ULL << (i % 64);
			break;
		}
	}
	for (size_t i = 0; i < cf->n; i++)
		if (cf->ent[i].col >= 0 && !(cf->seen[i / 64] >> (i % 64) & 1))
			return pn_error(-EPROTO, "%s: counter %s disappeared", cf->f.path,
					cf->keys + cf->ent[i].key_off);
	return 0;
}

int pn_cfile_sample(struct pn_cfile *cf, int64_t *row)
{
	int ret = pn_file_read(&cf->f);

	if (ret)
		return pn_error(ret, "%s: read: %s", cf->f.path, strerror(-ret));
	if (pn_cfile_lines_match(&cf->tl, cf->f.buf, cf->f.len, row) == 0)
		return 0;
	return cf_sample_slow(cf, row);
}

void pn_cfile_close(struct pn_cfile *cf)
{
	pn_file_close(&cf->f);
	free(cf->ent);
	free(cf->keys);
	free(cf->seen);
	pn_cfile_lines_free(&cf->tl);
	cf->ent = NULL;
	cf->keys = NULL;
	cf->seen = NULL;
	cf->n = 0;
}
