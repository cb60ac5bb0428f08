/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pn.h - shared core of pnbench, one header for the small modules of
 * core/lib: errors and logging (log.c), stop requests (signals.c), the
 * sysfs/procfs root prefix and re-readable files (sysroot.c), node sets
 * (nodeset.c), sizes and durations (units.c), time (clock.c), small
 * statistics (stats.c), text escaped for messages (escape.c) and allocation
 * that aborts on failure (alloc.c).
 *
 * Conventions: functions return 0 (or a count) on success and -errno on
 * failure.  pn_error() logs and returns its first argument, so error paths
 * read "return pn_error(-EINVAL, "config %s: ...", ...)".
 */
#ifndef PN_H
#define PN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Exit codes: documented in README.md, never change their meaning. */
#define PN_EXIT_PASS	     0 /* run complete, verdict passed */
#define PN_EXIT_VERDICT	     1 /* run complete, verdict failed (leak found) */
#define PN_EXIT_USAGE	     2 /* bad command line or config */
#define PN_EXIT_ERROR	     3 /* run failed (I/O, kernel refused, ...) */
#define PN_EXIT_SKIP	     4 /* nothing could run or be judged here; reasons printed */
#define PN_EXIT_INCONCLUSIVE 5 /* nothing failed, but events were lost: cannot clear a node */

#define PN_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- logging (stderr only; nothing here ever reaches result files) ---- */
enum pn_log_level { PN_LOG_QUIET, PN_LOG_ERROR, PN_LOG_WARN, PN_LOG_INFO, PN_LOG_DEBUG };
extern enum pn_log_level pn_log_level;

__attribute__((format(printf, 2, 3))) int pn_error(int err, const char *fmt, ...);
/* The message of this thread's last pn_error() ("" after pn_clear_error()):
 * a result's reason can say what failed, not only strerror. */
const char *pn_last_error(void);
void pn_clear_error(void);
/* pn_error() for a failure already reported once: recorded as the last error
 * (a result's reason still says it), logged only at debug level. */
__attribute__((format(printf, 2, 3))) int pn_error_again(int err, const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void pn_warn(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void pn_info(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void pn_debug(const char *fmt, ...);

/* ---- stop requests (SIGINT/TERM/HUP/QUIT); long loops poll pn_should_stop() ---- */
extern volatile sig_atomic_t pn_stop_signal;
static inline bool pn_should_stop(void)
{
	return pn_stop_signal != 0;
}
int pn_install_stop_handlers(void);
/* Mount fstype on target for this command only; pn_mounts_undo() (main, at
 * the end) unmounts what was mounted, newest first.  0 or -errno. */
int pn_mount_temp(const char *fstype, const char *target);
void pn_mounts_undo(void);
/* In a forked child before exec: the default action for the stop signals
 * and SIGPIPE (an ignored signal stays ignored across exec). */
void pn_default_signals(void);

/* ---- the /proc and /sys root prefix ----
 * Every /proc and /sys path goes through here.  The root comes from
 * $PNBENCH_SYSROOT (or pn_sysroot_set()); "" means the live system.  Tests
 * replay captured trees under tests/fixtures/<machine>/.
 */
void pn_sysroot_set(const char *root);
const char *pn_sysroot(void);
/* Compose root + rel ("/proc/vmstat") into out; -ENAMETOOLONG if it does not fit. */
int pn_path(char *out, size_t outlen, const char *rel);
/* open(root + rel, flags | O_CLOEXEC); returns fd or -errno. */
int pn_open(const char *rel, int flags);
/* 0 when fd (opened O_NONBLOCK, named path in messages) is a file to read
 * whole; -EINVAL, logged, for a FIFO, socket or device: in a replayed tree
 * one would block or never end. */
int pn_check_regular(int fd, const char *path);
/* Read a whole small file into buf (NUL-terminated); returns length or -errno. */
ssize_t pn_read_text(const char *rel, char *buf, size_t buflen);
/* pn_read_text() of a file that must fit: -EFBIG ("... is larger than N
 * bytes", logged) when it does not. */
ssize_t pn_read_whole(const char *rel, char *buf, size_t buflen);
/* Read a file holding one unsigned integer (decimal, or hex with 0x / hex=true). */
int pn_read_u64(const char *rel, uint64_t *val, bool hex);
/* Write a string to root + rel (for knobs such as /proc/sys/vm/stat_refresh). */
int pn_write_text(const char *rel, const char *text);
bool pn_exists(const char *rel);

/* A file kept open and re-read from offset 0 with pread (sysfs/seq_file
 * regenerate their content on every read at offset 0).  buf is owned by the
 * struct and holds the NUL-terminated content of the last pn_file_read(). */
struct pn_file {
	int fd;
	char *buf;
	size_t len;
	size_t cap;
	char *path; /* full path, for messages */
};
/* The most pn_file_read() takes of one file (counter files are kilobytes;
 * zoneinfo of a large machine a few MiB): beyond it -EFBIG, logged. */
#define PN_FILE_MAX_BYTES (16 << 20)
int pn_file_open(struct pn_file *f, const char *rel);
/* Re-read the whole file; -EFBIG past PN_FILE_MAX_BYTES, -EINTR past 1 MiB
 * once a stop was asked for (pn_should_stop()). */
int pn_file_read(struct pn_file *f);
void pn_file_close(struct pn_file *f);

/* ---- node sets: node ids are sparse (0,2,5 is legal) ---- */
#define PN_MAX_NODES 1024
struct pn_nodeset {
	uint64_t w[PN_MAX_NODES / 64];
};
void pn_nodeset_zero(struct pn_nodeset *s);
void pn_nodeset_set(struct pn_nodeset *s, int node);
bool pn_nodeset_test(const struct pn_nodeset *s, int node);
int pn_nodeset_count(const struct pn_nodeset *s);
bool pn_nodeset_empty(const struct pn_nodeset *s);
/* Next member after prev (use -1 to start); -1 at the end. */
int pn_nodeset_next(const struct pn_nodeset *s, int prev);
#define pn_nodeset_for_each(n, s)                                                                  \
	for ((n) = pn_nodeset_next((s), -1); (n) >= 0; (n) = pn_nodeset_next((s), (n)))
void pn_nodeset_and(struct pn_nodeset *d, const struct pn_nodeset *a, const struct pn_nodeset *b);
void pn_nodeset_or(struct pn_nodeset *d, const struct pn_nodeset *a, const struct pn_nodeset *b);
void pn_nodeset_andnot(struct pn_nodeset *d, const struct pn_nodeset *a,
		       const struct pn_nodeset *b);
bool pn_nodeset_equal(const struct pn_nodeset *a, const struct pn_nodeset *b);
/* Kernel list format: "0,2,5-7", "" or "\n" = empty.  -EINVAL on junk or ids >= PN_MAX_NODES. */
int pn_nodeset_parse(struct pn_nodeset *s, const char *str);
/* Format as "0,2,5-7"; returns -ENOSPC if it does not fit. */
int pn_nodeset_format(const struct pn_nodeset *s, char *buf, size_t len);
/* The nodeN entries (N decimal, < PN_MAX_NODES) of directory root + rel:
 * /sys/devices/system/node, nodeT/accessC/initiators.  0 or -errno (the
 * directory cannot be opened); s is empty on failure. */
int pn_nodeset_read_dir(const char *rel, struct pn_nodeset *s);

/* ---- sizes and durations ---- */
/* "4096", "64K", "2M", "1G", "1.5T", "1P": a decimal number (no sign, no
 * exponent) with an optional binary unit K M G T P (2^10 .. 2^50, either case),
 * optionally followed by "i" and/or "B".  The result must be a whole number of
 * bytes ("0.5K" is 512, "1.3K" is -EINVAL) up to UINT64_MAX (above: -ERANGE). */
int pn_parse_size(const char *s, uint64_t *bytes);
/* "500ms", "2s", "1m", "250us", bare number = milliseconds. */
int pn_parse_duration_ms(const char *s, uint64_t *ms);
void pn_format_size(uint64_t bytes, char *buf, size_t len);

/* ---- text for messages ---- */
/* s (NULL: "") into buf with every byte outside printable ASCII as \xNN;
 * once more than max bytes are written, "..." ends it (SIZE_MAX: no limit).
 * Always NUL-terminated; buf must hold at least 6 bytes.  Returns buf. */
const char *pn_escape(const char *s, char *buf, size_t len, size_t max);

/* ---- time ---- */
uint64_t pn_now_ns(void);		    /* CLOCK_MONOTONIC */
void pn_utc_iso8601(char *buf, size_t len); /* current UTC time, "2026-12-03T07:33:30Z" */

/* ---- statistics (these sort v in place) ---- */
double pn_percentile(double *v, size_t n, double p); /* p in [0,100], linear interpolation */
double pn_median(double *v, size_t n);

/* ---- misc ---- */
char *pn_strdup(const char *s); /* aborts on ENOMEM: allocation failure is fatal */
void *pn_xmalloc(size_t n);
void *pn_xcalloc(size_t n, size_t m);
void *pn_xrealloc(void *p, size_t n);

#endif /* PN_H */
