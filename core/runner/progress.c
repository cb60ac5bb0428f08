// SPDX-License-Identifier: GPL-2.0-only
/*
 * progress.c - progress lines with an estimate of the time left (progress.h):
 * a thread wakes every PERIOD_S during a phase, so one long phase is not
 * silent; the estimate is the mean time of the phases done so far times the
 * phases left, less the time the current one has run.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "progress.h"
#include "core/lib/pn.h"

#define PERIOD_S 10

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	bool running, stop, always;
	int total, done;
	double t0, t_last_done; /* seconds, CLOCK_MONOTONIC */
	char phase[64];
} pg = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *hms(double s, char *buf, size_t len)
{
	long t = s > 0 && s < 1e7 ? (long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
	return buf;
}

/* With pg.mu held. */
static void report(void)
{
	double t = now_s(), el = t - pg.t0;
	char e[48], left[48];

	if (!pg.always && el < PN_PROGRESS_AFTER_S)
		return;
	if (pg.done > 0) {
		double rest = (pg.t_last_done - pg.t0) / pg.done * (pg.total - pg.done) -
			      (t - pg.t_last_done);

		hms(rest > 0 ? rest : 0, left, sizeof(left));
	} else {
		snprintf(left, sizeof(left), "?");
	}
	fprintf(stderr,
		"pnbench: progress: %d/%d phases (%.0f %%), %s elapsed, about %s left%s%s\n",
		pg.done, pg.total, pg.total ? 100.0 * pg.done / pg.total : 0.0,
		hms(el, e, sizeof(e)), left, pg.phase[0] ? "; in " : "", pg.phase);
}

static void *ticker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pg.mu);
	while (!pg.stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += PERIOD_S;
		if (pthread_cond_timedwait(&pg.cv, &pg.mu, &ts) == ETIMEDOUT && !pg.stop)
			report();
	}
	pthread_mutex_unlock(&pg.mu);
	return NULL;
}

void pn_progress_start(int total, bool on, bool always)
{
	if (!on || pg.running)
		return;
	pg.total = total;
	pg.done = 0;
	pg.always = always;
	pg.stop = false;
	pg.phase[0] = '\0';
	pg.t0 = pg.t_last_done = now_s();
	if (pthread_create(&pg.th, NULL, ticker, NULL) == 0)
		pg.running = true;
}

void pn_progress_phase_done(void)
{
	if (!pg.running)
		return;
	pthread_mutex_lock(&pg.mu);
	pg.done++;
	pg.t_last_done = now_s();
	pg.phase[0] = '\0';
	report();
	pthread_mutex_unlock(&pg.mu);
}

void pn_progress_phase_begins(const char *name)
{
	if (!pg.running)
		return;
	pthread_mutex_lock(&pg.mu);
	snprintf(pg.phase, sizeof(pg.phase), "phase %s", name);
	pthread_mutex_unlock(&pg.mu);
}

void pn_progress_stop(void)
{
	if (!pg.running)
		return;
	pthread_mutex_lock(&pg.mu);
	pg.stop = true;
	pthread_cond_signal(&pg.cv);
	pthread_mutex_unlock(&pg.mu);
	pthread_join(pg.th, NULL);
	pg.running = false;
}
