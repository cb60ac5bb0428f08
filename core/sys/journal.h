/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * journal.h - every change a run makes to the machine, on disk before it is
 * made, so that a run killed by SIGKILL or a crash can be undone.
 *
 * One file per run: $PNBENCH_RUNDIR/journal.<pid> (default /run/pnbench),
 * JSON {"pid", "started_at", "sysroot", "command", "entries": [...]}, each
 * entry {"kind", "path", "old"}.  An entry is written (tmp + fsync + rename)
 * before the change and removed once the change is undone; a run that ends
 * normally leaves no file.  A journal whose pid is dead is stale: the next
 * run refuses to start and `pnbench recover` undoes it, newest entry first.
 *
 * Kinds and their undo:
 *   knob      write `old` back to path (sysroot-relative, as knob.c wrote it)
 *   cgroup    kill what is left in it, rmdir path (sysroot-relative)
 *   image     unlink path (a scratch image file)
 *   mountdir  rmdir path (a scratch mount point)
 *   loop      LOOP_CLR_FD on path if its backing file is still `old`
 *   mount     umount path (lazily if busy)
 * Only the process that began the journal writes to it: forked children
 * never do (their changes die with them or are the runner's to undo).
 * Functions return 0 or -errno with the reason logged.  `pnbench recover`
 * (core/cli/recover.c) reads the journals back.
 */
#ifndef PN_JOURNAL_H
#define PN_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* The journal directory: $PNBENCH_RUNDIR or /run/pnbench. */
const char *pn_journal_dir(void);
/* Refuse (-EBUSY, logged) while a stale journal exists; else create this
 * run's journal.  Without one (not root, no /run) changes are not journaled:
 * an error for root, a warning otherwise. */
int pn_journal_begin(int argc, char **argv);
/* Record a change before making it; 0 without an open journal. */
int pn_journal_add(const char *kind, const char *path, const char *old);
/* The newest entry of kind at path was undone (or never happened). */
void pn_journal_done(const char *kind, const char *path);
/* End of the run: the file goes if every change was undone; else it stays
 * for `pnbench recover` (warned). */
void pn_journal_end(void);
/*
 * Is the file at rel (sysroot-relative) a knob another live run changed?
 * Then *pid is that run and machine_value the value it found (the oldest
 * entry).  For provenance: an altered sysctl is not the machine's own.
 */
bool pn_journal_altered(const char *rel, char *machine_value, size_t len, int *pid);

/* ---- for `pnbench recover` (core/cli/recover.c) ---- */
/* Read a journal file (bounded); NULL with the reason logged. */
cJSON *pn_journal_load(const char *path);
/* Call fn for each journal file: fn(arg, path, pid) != 0 stops the walk. */
int pn_journal_each(int (*fn)(void *arg, const char *path, int pid), void *arg);
/* Is the run that wrote journal j (pid) gone (dead, or its pid reused)? */
bool pn_journal_run_gone(int pid, const cJSON *j);
/* Is entry e of kind at path? */
bool pn_journal_entry_is(const cJSON *e, const char *kind, const char *path);

#endif /* PN_JOURNAL_H */
