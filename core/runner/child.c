// SPDX-License-Identifier: GPL-2.0-only
/*
 * child.c - workloads in child processes (child.h).
 *
 * Wire protocol on a socketpair: the child sends one header + JSON text when
 * run() returns, then blocks reading one byte; the runner writes 'T' (tear
 * down and exit) or closes its end.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/sys/cgroup.h"
#include "child.h"
#include "core/lib/outdir.h"
#include "core/lib/pn.h"

#define MSG_MAGIC 0x706e7731u /* "pnw1" */

struct msg_hdr {
	uint32_t magic;
	int32_t rc;
	uint64_t t0_ns, t1_ns;
	uint64_t len;
};

const char *pn_end_name(enum pn_end e)
{
	static const char *const names[] = {
		"ok", "error", "signal", "oom_kill", "timeout", "lost"
	};

	return (size_t)e < PN_ARRAY_SIZE(names) ? names[e] : "lost";
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void child_main(struct pn_child *c, int sock, const char *cg_path)
{
	struct pn_wl *w = c->w;
	struct msg_hdr h = { .magic = MSG_MAGIC };
	char *text, cmd;
	int ret = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(126); /* the runner is already gone */
	pn_locks_drop_inherited();
	if (cg_path) {
		ret = pn_cgroup_enter(cg_path);
		if (ret)
			pn_res_note(&w->res, "could not enter cgroup %s: %s", cg_path,
				    strerror(-ret));
	}
	w->in_child = true;
	w->cgroup_path = cg_path;
	/* Wait for the runner's go: every child starts after the before-read. */
	while (read(sock, &cmd, 1) < 0 && errno == EINTR)
		;
	h.t0_ns = pn_now_ns();
	if (!ret)
		ret = w->ops->run(w);
	h.t1_ns = pn_now_ns();
	h.rc = ret;
	text = pn_res_serialize(&w->res);
	h.len = text ? strlen(text) : 0;
	if (write_all(sock, &h, sizeof(h)) || (h.len && write_all(sock, text, h.len)))
		_exit(125);
	free(text);
	/* Memory stays mapped until the runner has read the node counters. */
	while (read(sock, &cmd, 1) < 0 && errno == EINTR)
		;
	if (w->ops->teardown)
		w->ops->teardown(w);
	_exit(ret ? 1 : 0);
}

int pn_child_start(struct pn_child *c, struct pn_wl *w, const char *cg_path, const int *close_fds,
		   size_t nclose)
{
	int sv[2];

	memset(c, 0, sizeof(*c));
	c->w = w;
	c->sock = -1;
	if (cg_path) {
		snprintf(c->cg_path, sizeof(c->cg_path), "%s", cg_path);
		c->has_cg = true;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return pn_error(-errno, "socketpair: %s", strerror(errno));
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		int err = errno;

		close(sv[0]);
		close(sv[1]);
		return pn_error(-err, "fork: %s", strerror(err));
	}
	if (c->pid == 0) {
		close(sv[0]);
		for (size_t i = 0; i < nclose; i++)
			if (close_fds[i] >= 0)
				close(close_fds[i]);
		child_main(c, sv[1], cg_path ? c->cg_path : NULL);
	}
	close(sv[1]);
	c->sock = sv[0];
	return 0;
}

static void read_available(struct pn_child *c)
{
	for (;;) {
		ssize_t n;

		if (c->cap - c->len < 65536) {
			c->cap = c->cap ? c->cap * 2 : 131072;
			c->buf = pn_xrealloc(c->buf, c->cap);
		}
		n = recv(c->sock, c->buf + c->len, c->cap - c->len - 1, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
				close(c->sock); /* EOF: the child is gone or done writing */
				c->sock = -1;
			}
			break;
		}
		c->len += (size_t)n;
	}
	if (!c->got_result && c->len >= sizeof(struct msg_hdr)) {
		struct msg_hdr h;

		memcpy(&h, c->buf, sizeof(h));
		if (h.magic == MSG_MAGIC && c->len >= sizeof(h) + h.len) {
			c->got_result = true;
			c->run_rc = h.rc;
			c->t0_ns = h.t0_ns;
			c->t1_ns = h.t1_ns;
			c->buf[sizeof(h) + h.len] = '\0';
		}
	}
}

bool pn_child_poll(struct pn_child *c)
{
	if (c->pid <= 0)
		return true;
	if (c->sock >= 0)
		read_available(c);
	if (!c->reaped && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->reaped = true;
	if (c->reaped && c->sock >= 0)
		read_available(c); /* whatever it wrote before it died */
	return c->got_result || c->reaped;
}

void pn_child_wait_any(struct pn_child *const *cs, size_t n, int timeout_ms)
{
	struct pollfd *p = pn_xcalloc(n ? n : 1, sizeof(*p));
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (cs[i]->pid > 0 && cs[i]->sock >= 0 && !cs[i]->got_result)
			p[k++] = (struct pollfd){ .fd = cs[i]->sock, .events = POLLIN };
	/* A child that dies without writing is seen by waitpid: keep the wait short. */
	poll(p, k, timeout_ms);
	free(p);
}

void pn_child_go(struct pn_child *c)
{
	if (c->sock >= 0 && write_all(c->sock, "G", 1))
		pn_warn("workload %s: cannot start it: %s", c->w->ops->name, strerror(errno));
}

void pn_child_stop(struct pn_child *c)
{
	if (c->w && c->w->stop)
		*c->w->stop = 1;
}

void pn_child_interrupt(struct pn_child *c)
{
	pn_child_stop(c);
	if (c->pid > 0 && !c->reaped && !c->got_result && c->kill_stage == 0) {
		kill(c->pid, SIGTERM);
		c->kill_stage = 1;
		c->kill_at_ns = pn_now_ns() + 2000000000ULL;
	}
}

void pn_child_check_deadline(struct pn_child *c, uint64_t now_ns)
{
	if (c->pid <= 0 || c->reaped || c->got_result)
		return;
	if (c->kill_stage == 0 && c->deadline_ns && now_ns >= c->deadline_ns) {
		c->timed_out = true;
		pn_child_stop(c);
		kill(c->pid, SIGTERM);
		c->kill_stage = 1;
		c->kill_at_ns = now_ns + 2000000000ULL;
	} else if (c->kill_stage == 1 && now_ns >= c->kill_at_ns) {
		kill(c->pid, SIGKILL);
		c->kill_stage = 2;
	}
}

void pn_child_finish(struct pn_child *c, int grace_ms)
{
	uint64_t until = pn_now_ns() + (uint64_t)grace_ms * 1000000ULL;

	if (c->pid <= 0)
		return;
	if (c->sock >= 0) {
		(void)write_all(c->sock, "T", 1);
		shutdown(c->sock, SHUT_WR);
	}
	while (!c->reaped) {
		struct timespec ts = { 0, 5000000L };

		pn_child_poll(c);
		if (c->reaped)
			break;
		if (pn_now_ns() > until) {
			kill(c->pid, SIGKILL);
			if (waitpid(c->pid, &c->status, 0) == c->pid)
				c->reaped = true;
			break;
		}
		nanosleep(&ts, NULL);
	}
}

void pn_child_outcome(struct pn_child *c, const struct pn_cgroup_root *cr, struct pn_outcome *o)
{
	int64_t kills = 0;

	memset(o, 0, sizeof(*o));
	if (c->has_cg && pn_cgroup_oom_kills(cr, c->cg_path, &kills) == 0)
		o->oom_kills = kills - c->oom_kills_before;
	if (c->got_result && pn_res_parse(&c->w->res, c->buf + sizeof(struct msg_hdr)) != 0)
		pn_res_note(&c->w->res, "the child's result could not be parsed");
	o->err = c->run_rc;
	if (c->reaped && WIFSIGNALED(c->status) && !c->got_result) {
		o->signal = WTERMSIG(c->status);
		o->end = c->timed_out				      ? PN_END_TIMEOUT
			 : (o->signal == SIGKILL && o->oom_kills > 0) ? PN_END_OOM_KILL
								      : PN_END_SIGNAL;
		snprintf(o->detail, sizeof(o->detail), "%s%s%s", strsignal(o->signal),
			 o->end == PN_END_OOM_KILL ? " (OOM kill in its cgroup)" : "",
			 o->end == PN_END_TIMEOUT ? " (past its timeout)" : "");
	} else if (c->got_result) {
		o->exit_code = c->reaped && WIFEXITED(c->status) ? WEXITSTATUS(c->status) : 0;
		o->end = c->run_rc ? PN_END_ERROR : PN_END_OK;
		if (c->run_rc)
			snprintf(o->detail, sizeof(o->detail), "run() failed: %s",
				 strerror(-c->run_rc));
	} else {
		o->end = PN_END_LOST;
		o->exit_code = c->reaped && WIFEXITED(c->status) ? WEXITSTATUS(c->status) : -1;
		snprintf(o->detail, sizeof(o->detail), "exited (status %d) without a result",
			 o->exit_code);
	}
}

void pn_child_release(struct pn_child *c)
{
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
	free(c->buf);
	c->buf = NULL;
	c->len = c->cap = 0;
}
