/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * progress.h - a run's progress on stderr: phases done of all, elapsed time
 * and an estimate of the time left, from the phases done so far.  Lines
 * only, never into run.json or stdout.
 */
#ifndef PN_PROGRESS_H
#define PN_PROGRESS_H

#include <stdbool.h>

/* Start for total phases (points x iterations x phases).  always: every
 * phase boundary and every 10 s (--progress); else (stderr a terminal)
 * only once the run has taken PN_PROGRESS_AFTER_S.  Off: nothing at all. */
void pn_progress_start(int total, bool on, bool always);
/* A phase ended (counted) or begins (named): prints as above. */
void pn_progress_phase_done(void);
void pn_progress_phase_begins(const char *name);
void pn_progress_stop(void);

#define PN_PROGRESS_AFTER_S 3

#endif /* PN_PROGRESS_H */
