/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cfile.h - the collectors' fast path over "key value" counter files
 * (/proc/vmstat, nodeN/vmstat, nodeN/numastat) and nodeN/meminfo.
 *
 * open() reads the file once, validates it with the strict parsers of
 * procfs.h, and remembers every line's fixed text (a line template: "Node 2
 * MemFree:", "nr_free_pages") in order together with the column it feeds.
 * sample() re-reads the kept-open file with pread and walks the lines in
 * place: the i-th line must start with the i-th template (one memcmp), its
 * number goes straight into row[col].  No allocation, no hashing, no copies.
 * If the kernel ever changes the layout the sample falls back to a lookup by
 * key; a key that disappeared is an error (columns are fixed at open and a
 * missing value must not read as 0).
 */
#ifndef PN_CFILE_H
#define PN_CFILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/lib/pn.h"
#include "procfs.h"

/*
 * Line templates: the fixed text of every line of a counter file as seen at
 * open(), in order.  Kernel counter files keep their layout between reads;
 * only the numbers change (and the blanks that pad them).  Matching a sample
 * against the templates costs one memcmp and one number parse per line.
 */
enum pn_cfile_line_kind {
	PN_CFILE_LINE_NUM,  /* prefix, blanks, number, optional " kB" (-> bytes), end */
	PN_CFILE_LINE_ADD,  /* the same, the number is added to row[col] */
	PN_CFILE_LINE_TEXT, /* the whole line is fixed text */
};

struct pn_tl {
	uint32_t off, len; /* prefix (or whole line) in text */
	int32_t col;	   /* -1: parsed and dropped */
	uint8_t kind;
};

struct pn_cfile_lines {
	size_t n, cap;
	struct pn_tl *l;
	char *text;
	size_t text_len, text_cap;
};

void pn_cfile_lines_add(struct pn_cfile_lines *t, const char *s, size_t len,
			enum pn_cfile_line_kind kind, int col);
/* Split one line [p, e) into the template prefix (up to the blanks before the
 * last number) - returns its length, or 0 for a line without a number. */
size_t pn_cfile_lines_prefix_len(const char *p, const char *e);
/* Match buf (len bytes, NUL-terminated) line by line; store the numbers.
 * 0: matched; 1: the layout differs (the caller falls back to a full parse).
 * PN_CFILE_LINE_ADD columns are zeroed first. */
int pn_cfile_lines_match(const struct pn_cfile_lines *t, const char *buf, size_t len, int64_t *row);
void pn_cfile_lines_free(struct pn_cfile_lines *t);

enum pn_cfile_fmt {
	PN_CFILE_KV,	       /* "key value" */
	PN_CFILE_NODE_MEMINFO, /* "Node N Key:  value kB" (kB -> bytes) */
};

struct pn_cfile_ent {
	uint32_t key_off; /* into keys */
	uint32_t key_len;
	int col; /* column index, or -1: not collected */
};

struct pn_cfile {
	struct pn_file f;
	enum pn_cfile_fmt fmt;
	int node; /* PN_CFILE_NODE_MEMINFO: the node the lines must name */
	size_t n;
	struct pn_cfile_ent *ent; /* in line order */
	char *keys;		  /* NUL-separated keys */
	uint64_t *seen;		  /* slow path scratch, one bit per entry */
	struct pn_cfile_lines tl; /* fast path */
};

/*
 * Open rel through the sysroot, read and validate it, and ask col_for(arg, key)
 * for the column of every key (return >= 0, -1 to skip the key, or -errno to
 * fail).  Errors are logged with the file name.
 */
int pn_cfile_open(struct pn_cfile *cf, const char *rel, enum pn_cfile_fmt fmt, int node,
		  int (*col_for)(void *arg, const char *key), void *arg);
/* Re-read and store every collected value into row[col]. */
int pn_cfile_sample(struct pn_cfile *cf, int64_t *row);
void pn_cfile_close(struct pn_cfile *cf);

#endif /* PN_CFILE_H */
