// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpfmt.c - tracepoint formats through libtraceevent.  See tpfmt.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lib/pn.h"
#include "tpfmt.h"

#ifdef PN_HAVE_TRACEEVENT
#include <traceevent/event-parse.h>

int pn_tp_init(struct pn_tp *tp)
{
	tp->tep = tep_alloc();
	if (!tp->tep)
		return -ENOMEM;
	/* Samples come from the running kernel: native sizes and endianness. */
	tep_set_long_size(tp->tep, (int)sizeof(long));
	return 0;
}

void pn_tp_free(struct pn_tp *tp)
{
	if (tp->tep)
		tep_free(tp->tep);
	tp->tep = NULL;
}

int pn_tp_parse(struct pn_tp *tp, const char *sys, const char *buf, size_t len,
		struct tep_event **ev)
{
	struct tep_event *e = NULL;
	enum tep_errno r = tep_parse_format(tp->tep, &e, buf, (unsigned long)len, sys);

	if (r != TEP_ERRNO__SUCCESS || !e) {
		char msg[128] = "";

		tep_strerror(tp->tep, r, msg, sizeof(msg));
		return pn_error(-EINVAL, "tracepoint format of %s: %s", sys, msg);
	}
	/* libtraceevent accepts much; an event needs an id and the common header */
	if (e->id <= 0 || !e->name || !tep_find_common_field(e, "common_type"))
		return pn_error(-EINVAL, "tracepoint format of %s: no ID or no common_type field",
				sys);
	*ev = e;
	return 0;
}

int pn_tp_load(struct pn_tp *tp, const char *tracefs, const char *sys, const char *name,
	       struct tep_event **ev)
{
	char path[4096];
	size_t cap = 1 << 16, len = 0;
	char *buf;
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, sys, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	buf = pn_xmalloc(cap);
	for (;;) {
		size_t got = fread(buf + len, 1, cap - len, f);

		len += got;
		if (len < cap)
			break;
		cap *= 2;
		buf = pn_xrealloc(buf, cap);
	}
	ret = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!ret)
		ret = pn_tp_parse(tp, sys, buf, len, ev);
	free(buf);
	return ret;
}

int pn_tp_event_id(const struct tep_event *ev)
{
	return ev->id;
}

const char *pn_tp_event_name(const struct tep_event *ev)
{
	return ev->name;
}

int pn_tp_field(const struct tep_event *ev, const char *name, int min_size, struct pn_tpfield *out)
{
	struct tep_format_field *f = tep_find_any_field((struct tep_event *)ev, name);

	memset(out, 0, sizeof(*out));
	if (!f)
		return -ENOENT;
	if ((f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) || f->size < min_size ||
	    f->offset < 0 || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
		return pn_error(-EINVAL,
				"tracepoint %s: field %s has size %d (want an integer of %d+"
				" bytes)",
				ev->name, name, f->size, min_size);
	out->offset = f->offset;
	out->size = f->size;
	out->is_signed = (f->flags & TEP_FIELD_IS_SIGNED) != 0;
	out->present = true;
	return 0;
}

/* The print argument that prints field `field` through flags or symbols. */
static const struct tep_print_arg *find_table(const struct tep_print_arg *a, const char *field)
{
	for (; a; a = a->next) {
		const struct tep_print_arg *inner = NULL, *hit;

		switch (a->type) {
		case TEP_PRINT_FLAGS: inner = a->flags.field; break;
		case TEP_PRINT_SYMBOL: inner = a->symbol.field; break;
		case TEP_PRINT_TYPE:
			hit = find_table(a->typecast.item, field);
			if (hit)
				return hit;
			continue;
		case TEP_PRINT_OP:
			hit = find_table(a->op.left, field);
			if (!hit)
				hit = find_table(a->op.right, field);
			if (hit)
				return hit;
			continue;
		default: continue;
		}
		while (inner && inner->type == TEP_PRINT_TYPE)
			inner = inner->typecast.item;
		if (inner && inner->type == TEP_PRINT_FIELD && inner->field.name &&
		    !strcmp(inner->field.name, field))
			return a;
	}
	return NULL;
}

int pn_tp_flags(const struct tep_event *ev, const char *field, struct pn_tpflags *out)
{
	const struct tep_print_arg *a = find_table(ev->print_fmt.args, field);
	const struct tep_print_flag_sym *s;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	if (!a)
		return -ENOENT;
	out->symbolic = a->type == TEP_PRINT_SYMBOL;
	s = out->symbolic ? a->symbol.symbols : a->flags.flags;
	for (const struct tep_print_flag_sym *c = s; c; c = c->next)
		n++;
	out->f = pn_xcalloc(n ? n : 1, sizeof(*out->f));
	for (; s; s = s->next) {
		char *end;

		if (!s->value || !s->str)
			continue;
		errno = 0;
		/* libtraceevent evaluated the expression to a number at parse time */
		uint64_t v = strtoull(s->value, &end, 0);

		if (errno || *end)
			continue;
		out->f[out->n].value = v;
		out->f[out->n++].name = pn_strdup(s->str);
	}
	return 0;
}
#else /* !PN_HAVE_TRACEEVENT */
int pn_tp_init(struct pn_tp *tp)
{
	tp->tep = NULL;
	return -ENOSYS;
}

void pn_tp_free(struct pn_tp *tp)
{
	tp->tep = NULL;
}

int pn_tp_parse(struct pn_tp *tp, const char *sys, const char *buf, size_t len,
		struct tep_event **ev)
{
	(void)tp, (void)sys, (void)buf, (void)len, (void)ev;
	return -ENOSYS;
}

int pn_tp_load(struct pn_tp *tp, const char *tracefs, const char *sys, const char *name,
	       struct tep_event **ev)
{
	(void)tp, (void)tracefs, (void)sys, (void)name, (void)ev;
	return -ENOSYS;
}

int pn_tp_event_id(const struct tep_event *ev)
{
	(void)ev;
	return -ENOSYS;
}

const char *pn_tp_event_name(const struct tep_event *ev)
{
	(void)ev;
	return "?";
}

int pn_tp_field(const struct tep_event *ev, const char *name, int min_size, struct pn_tpfield *out)
{
	(void)ev, (void)name, (void)min_size;
	memset(out, 0, sizeof(*out));
	return -ENOSYS;
}

int pn_tp_flags(const struct tep_event *ev, const char *field, struct pn_tpflags *out)
{
	(void)ev, (void)field;
	memset(out, 0, sizeof(*out));
	return -ENOSYS;
}
#endif

void pn_tpflags_free(struct pn_tpflags *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->f[i].name);
	free(t->f);
	memset(t, 0, sizeof(*t));
}

int pn_tpflags_value(const struct pn_tpflags *t, const char *name, uint64_t *value)
{
	for (size_t i = 0; i < t->n; i++) {
		if (!strcmp(t->f[i].name, name)) {
			*value = t->f[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

/* Append s to buf at *off; -ENOSPC once it no longer fits. */
static int put(char *buf, size_t len, size_t *off, const char *s)
{
	size_t sl = strlen(s);

	if (*off + sl >= len) {
		if (len) {
			size_t room = len - 1 - (*off < len ? *off : len - 1);

			memcpy(buf + *off, s, room);
			buf[len - 1] = '\0';
		}
		*off = len;
		return -ENOSPC;
	}
	memcpy(buf + *off, s, sl + 1);
	*off += sl;
	return 0;
}

int pn_tpflags_decode(const struct pn_tpflags *t, uint64_t v, char *buf, size_t len)
{
	char hex[24];
	size_t off = 0;
	bool any = false;
	int ret = 0;

	if (len)
		buf[0] = '\0';
	if (t->symbolic) {
		for (size_t i = 0; i < t->n; i++)
			if (t->f[i].value == v)
				return put(buf, len, &off, t->f[i].name) ?: (int)off;
		snprintf(hex, sizeof(hex), "0x%" PRIx64, v);
		return put(buf, len, &off, hex) ?: (int)off;
	}
	if (!v)
		return put(buf, len, &off, "none") ?: (int)off;
	/* Same order and rule as libtraceevent: a combined flag is printed when
	 * all its bits are set, and its bits are then cleared. */
	for (size_t i = 0; i < t->n && v && !ret; i++) {
		uint64_t f = t->f[i].value;

		if (!f || (v & f) != f)
			continue;
		if (any)
			ret = put(buf, len, &off, "|");
		if (!ret)
			ret = put(buf, len, &off, t->f[i].name);
		any = true;
		v &= ~f;
	}
	if (!ret && v) {
		snprintf(hex, sizeof(hex), "%s0x%" PRIx64, any ? "|" : "", v);
		ret = put(buf, len, &off, hex);
	}
	return ret ? ret : (int)off;
}
