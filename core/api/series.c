// SPDX-License-Identifier: GPL-2.0-only
/* series.c - in-memory time series of raw counters; CSV output.  See series.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/lib/atomicfile.h"
#include "core/lib/pn.h"
#include "series.h"

void pn_series_init(struct pn_series *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->name = pn_strdup(name);
}

int pn_series_add_col(struct pn_series *s, const char *col)
{
	if (s->nrows)
		return -EBUSY; /* columns are fixed once sampling starts */
	if (pn_series_find_col(s, col) >= 0)
		return -EEXIST;
	s->cols = pn_xrealloc(s->cols, (s->ncols + 1) * sizeof(*s->cols));
	s->cols[s->ncols] = pn_strdup(col);
	return (int)s->ncols++;
}

int pn_series_find_col(const struct pn_series *s, const char *col)
{
	for (size_t i = 0; i < s->ncols; i++)
		if (!strcmp(s->cols[i], col))
			return (int)i;
	return -ENOENT;
}

int64_t *pn_series_append(struct pn_series *s, uint64_t t_ns, int iteration, const char *phase)
{
	int64_t *row;

	if (s->nrows == s->caprows) {
		size_t cap = s->caprows ? s->caprows * 2 : 64;

		s->t_ns = pn_xrealloc(s->t_ns, cap * sizeof(*s->t_ns));
		s->iteration = pn_xrealloc(s->iteration, cap * sizeof(*s->iteration));
		s->phase = pn_xrealloc(s->phase, cap * sizeof(*s->phase));
		s->vals = pn_xrealloc(s->vals, cap * (s->ncols ? s->ncols : 1) * sizeof(*s->vals));
		s->caprows = cap;
	}
	s->t_ns[s->nrows] = t_ns;
	s->iteration[s->nrows] = iteration;
	s->phase[s->nrows] = phase;
	row = s->vals + s->nrows * s->ncols;
	memset(row, 0, s->ncols * sizeof(*row));
	s->nrows++;
	return row;
}

const int64_t *pn_series_row(const struct pn_series *s, size_t row)
{
	return row < s->nrows ? s->vals + row * s->ncols : NULL;
}

static void write_row(FILE *f, const struct pn_series *s, size_t r)
{
	const int64_t *row = s->vals + r * s->ncols;

	fprintf(f, "%" PRIu64 ",%d,%s", s->t_ns[r], s->iteration[r],
		s->phase[r] ? s->phase[r] : "");
	for (size_t c = 0; c < s->ncols; c++)
		fprintf(f, ",%" PRId64, row[c]);
	fputc('\n', f);
}

int pn_series_stream(struct pn_series *s, int dirfd, const char *dir, const char *name)
{
	int fd = pn_outfile_create(dirfd, dir, name);

	if (fd < 0)
		return fd;
	s->out = fdopen(fd, "w");
	if (!s->out) {
		int err = -errno;

		close(fd);
		return err;
	}
	fputs("t_ns,iteration,phase", s->out);
	for (size_t c = 0; c < s->ncols; c++)
		fprintf(s->out, ",%s", s->cols[c]);
	fputc('\n', s->out);
	s->written = s->nrows;
	return pn_series_flush(s);
}

void pn_series_commit(struct pn_series *s)
{
	if (!s->out)
		return;
	for (; s->written < s->nrows; s->written++)
		write_row(s->out, s, s->written);
}

int pn_series_flush(struct pn_series *s)
{
	if (!s->out)
		return 0;
	pn_series_commit(s);
	return fflush(s->out) ? -errno : 0;
}

int pn_series_close(struct pn_series *s)
{
	int ret = pn_series_flush(s);

	if (s->out && fclose(s->out) && !ret)
		ret = -errno;
	s->out = NULL;
	return ret;
}

void pn_series_free(struct pn_series *s)
{
	if (s->out)
		pn_series_close(s);
	for (size_t i = 0; i < s->ncols; i++)
		free(s->cols[i]);
	free(s->cols);
	free(s->t_ns);
	free(s->iteration);
	free(s->phase);
	free(s->vals);
	free(s->name);
	memset(s, 0, sizeof(*s));
}
