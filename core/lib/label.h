/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * label.h - a matrix point as people read it: `size=16M spill=after`, each
 * JSONPath of the point cut to its shortest suffix of steps that no other
 * path of the point shares (report/pnreportlib/labels.py follows the same
 * rule).  Nothing is truncated into looking like another point.
 */
#ifndef PN_LABEL_H
#define PN_LABEL_H

#include <stddef.h>

struct cJSON;

/* The label of matrix ({JSONPath: value}, NULL or {} for none: "") into buf
 * (always terminated; a label that does not fit ends in "...").  Returns buf. */
const char *pn_point_label(const struct cJSON *matrix, char *buf, size_t len);

#endif /* PN_LABEL_H */
