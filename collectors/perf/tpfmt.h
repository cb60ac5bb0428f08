/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tpfmt.h - tracepoint formats through libtraceevent: field offsets and
 * sizes from events/<sys>/<name>/format (never hard-coded), bounds-checked
 * reads of raw sample data, and the flag/symbol tables of the print format
 * (__print_flags / __print_symbolic) to decode gfp flags and reason enums.
 *
 * Without libtraceevent at build time every function returns -ENOSYS.
 */
#ifndef PN_TPFMT_H
#define PN_TPFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;

/* One set of parsed formats (one tep handle). */
struct pn_tp {
	struct tep_handle *tep;
};

/* A field of an event, located by name. */
struct pn_tpfield {
	int offset, size;
	bool is_signed;
	bool present;
};

/* A __print_flags / __print_symbolic table of one field. */
struct pn_tpflag {
	uint64_t value;
	char *name;
};
struct pn_tpflags {
	size_t n;
	struct pn_tpflag *f; /* in print-format order (libtraceevent decodes in this order) */
	bool symbolic;	     /* __print_symbolic: the value is one of the names */
};

int pn_tp_init(struct pn_tp *tp);
void pn_tp_free(struct pn_tp *tp);

/* Parse one format file's text for system sys.  *ev is owned by tp. */
int pn_tp_parse(struct pn_tp *tp, const char *sys, const char *buf, size_t len,
		struct tep_event **ev);
/* Read <tracefs>/events/<sys>/<name>/format (tracefs is a full path) and parse it. */
int pn_tp_load(struct pn_tp *tp, const char *tracefs, const char *sys, const char *name,
	       struct tep_event **ev);
int pn_tp_event_id(const struct tep_event *ev);
const char *pn_tp_event_name(const struct tep_event *ev);

/*
 * Locate field `name`; its size must be one of 1, 2, 4, 8 and at least
 * min_size bytes.  -ENOENT if the event has no such field (out->present is
 * false), -EINVAL for an unusable size.
 */
int pn_tp_field(const struct tep_event *ev, const char *name, int min_size, struct pn_tpfield *out);

/* Read an integer field from raw data already checked to hold it (the hot
 * path); signed fields are sign extended. */
static inline uint64_t pn_tpfield_get(const struct pn_tpfield *f, const unsigned char *raw)
{
	const unsigned char *p = raw + f->offset;
	uint64_t v;

	switch (f->size) {
	case 1: v = *p; break;
	case 2: {
		uint16_t x;

		__builtin_memcpy(&x, p, 2);
		v = x;
		break;
	}
	case 4: {
		uint32_t x;

		__builtin_memcpy(&x, p, 4);
		v = x;
		break;
	}
	default: __builtin_memcpy(&v, p, 8); break;
	}
	if (f->is_signed && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ULL << (f->size * 8);
	return v;
}

/* Read an integer field from raw data of len bytes; signed fields are sign
 * extended.  -EINVAL if the field lies outside the data (truncated sample). */
static inline int pn_tpfield_read(const struct pn_tpfield *f, const void *raw, size_t len,
				  uint64_t *out)
{
	if (!f->present || f->offset < 0 || (size_t)f->offset + (size_t)f->size > len)
		return -22; /* -EINVAL, without pulling errno.h into every user */
	*out = pn_tpfield_get(f, raw);
	return 0;
}

/* The flag or symbol table the print format applies to field `field`;
 * -ENOENT if it prints the field some other way. */
int pn_tp_flags(const struct tep_event *ev, const char *field, struct pn_tpflags *out);
void pn_tpflags_free(struct pn_tpflags *t);
/* Value of the entry called name ("__GFP_PRIVATE"); -ENOENT if absent. */
int pn_tpflags_value(const struct pn_tpflags *t, const char *name, uint64_t *value);
/*
 * Decode v the way trace output prints it: "GFP_HIGHUSER_MOVABLE|__GFP_COMP",
 * leftover bits as hex ("|0x400000"), 0 as "none" for flags.  Returns the
 * length, or -ENOSPC when buf is too small (buf then holds a truncated,
 * NUL-terminated prefix).
 */
int pn_tpflags_decode(const struct pn_tpflags *t, uint64_t v, char *buf, size_t len);

#endif /* PN_TPFMT_H */
