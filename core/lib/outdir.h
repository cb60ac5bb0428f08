/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * outdir.h - the results directory and the locks a run holds.
 *
 * The results directory is opened once (O_DIRECTORY|O_NOFOLLOW) and every
 * result file is made under that fd (atomicfile.h); a -o that is itself a
 * symlink is refused, naming its target.  The directory fd carries an
 * exclusive flock for the whole run: a second run into the same directory
 * is refused.  Runs that change the host (as root on the live system:
 * knobs, cgroups, mounts) also hold PN_HOST_LOCK, one at a time; a second
 * one waits for it, or with no_wait is refused.
 *
 * Functions return 0 or -errno with the reason logged (pn_error).
 */
#ifndef PN_OUTDIR_H
#define PN_OUTDIR_H

#include <stdbool.h>

#define PN_HOST_LOCK_DIR "/run/pnbench"
#define PN_HOST_LOCK	 PN_HOST_LOCK_DIR "/host.lock"

/* -o DIR before anything runs: not "", short enough for every file the run
 * makes under it, and not on a pseudo filesystem (cgroupfs, tracefs, procfs,
 * sysfs, debugfs ...) where a mkdir makes a cgroup or a tracing instance. */
int pn_outdir_check_arg(const char *dir);
/* Make dir (mkdir -p; exclusive: it must be new, -EEXIST otherwise), open
 * it, lock it (-EBUSY if another run holds it), and refuse it if it holds a
 * run.json and !force; returns the locked directory fd or -errno. */
int pn_outdir_open(const char *dir, bool exclusive, bool force);
/* Take the host lock; waits (saying so on stderr) unless no_wait (then
 * -EBUSY).  -EINTR when a stop signal came while waiting.  Returns the fd
 * that holds it or -errno. */
int pn_host_lock(bool no_wait);
/* Does this run change the host (root, live system)? */
bool pn_host_lock_needed(void);
/* Release a lock fd from pn_outdir_open() or pn_host_lock(). */
void pn_lock_release(int fd);
/* In a forked child that does not exec: close the inherited lock fds, so
 * that a child outliving the runner does not hold its locks. */
void pn_locks_drop_inherited(void);

#endif
