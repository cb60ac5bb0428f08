// SPDX-License-Identifier: GPL-2.0-only
/*
 * scratchfs.c - a scratch filesystem for real page cache (scratchfs.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/loop.h>

#include "core/sys/journal.h"
#include "core/lib/pn.h"
#include "scratchfs.h"

/* ------------------------------------------------------------ commands */

int pn_run_quiet(char *const argv[])
{
	char err[256] = "";
	int status, pfd[2];
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return pn_error(-errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return pn_error(-errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		if (fd >= 0)
			dup2(fd, 1);
		dup2(pfd[1], 2); /* its complaint, for the error message */
		pn_default_signals();
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	while ((r = read(pfd[0], err + got, sizeof(err) - 1 - got)) > 0 ||
	       (r < 0 && errno == EINTR))
		got += r > 0 ? (size_t)r : 0;
	close(pfd[0]);
	err[got] = '\0';
	err[strcspn(err, "\n")] = '\0'; /* its first line */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return pn_error(-errno, "waitpid %s: %s", argv[0], strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return pn_error(-ENOENT, "%s: not found (install e2fsprogs)", argv[0]);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return pn_error(-EIO, "%s %s failed (status 0x%x)%s%s", argv[0],
				argv[1] ? argv[1] : "", (unsigned)status, *err ? ": " : "", err);
	return 0;
}

/* ------------------------------------------------------ scratch filesystem */

/* mke2fs from the system's own directories, never from $PATH: the runner
 * is root and a PATH entry could be anyone's. */
static const char *mke2fs_path(void)
{
	static const char *const cands[] = { "/usr/sbin/mke2fs", "/sbin/mke2fs", "/usr/bin/mke2fs",
					     "/bin/mke2fs" };

	for (size_t i = 0; i < PN_ARRAY_SIZE(cands); i++)
		if (!access(cands[i], X_OK))
			return cands[i];
	return NULL;
}

static int mkfs(const char *target, const char *fstype)
{
	const char *bin = mke2fs_path();
	char *ext2[] = { (char *)bin, "-q", "-F", (char *)target, NULL };
	char *other[] = { (char *)bin, "-q", "-F", "-t", (char *)fstype, (char *)target, NULL };

	if (!bin)
		return pn_error(-ENOENT, "mke2fs not found in /usr/sbin, /sbin, /usr/bin or /bin "
					 "(install e2fsprogs)");
	/* busybox's mke2fs (the guests) knows no -t; ext2 needs none */
	return pn_run_quiet(strcmp(fstype, "ext2") ? other : ext2);
}

static int loop_attach(struct pn_scratch_fs *fs)
{
	struct loop_config cfg;
	int ctl, lfd = -1, ffd, ret = 0;

	ffd = open(fs->image, O_RDWR | O_CLOEXEC);
	if (ffd < 0)
		return pn_error(-errno, "%s: %s", fs->image, strerror(errno));
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		ret = pn_error(-errno,
			       "/dev/loop-control: %s (loop devices unavailable: name a "
			       "scratch block device with the device option)",
			       strerror(errno));
		goto out;
	}
	/* Another user may take the free device between the two calls: retry. */
	for (int tries = 0; tries < 16; tries++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (n < 0) {
			ret = pn_error(-errno, "LOOP_CTL_GET_FREE: %s", strerror(errno));
			break;
		}
		snprintf(fs->dev, sizeof(fs->dev), "/dev/loop%d", n);
		lfd = open(fs->dev, O_RDWR | O_CLOEXEC);
		if (lfd < 0) {
			ret = pn_error(-errno, "%s: %s", fs->dev, strerror(errno));
			break;
		}
		ret = pn_journal_add("loop", fs->dev, fs->image);
		if (ret) {
			close(lfd);
			lfd = -1;
			break;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (unsigned)ffd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
		ret = ioctl(lfd, LOOP_CONFIGURE, &cfg) ? -errno : 0;
		if (ret == -EINVAL) { /* the backing filesystem refuses O_DIRECT */
			cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
			ret = ioctl(lfd, LOOP_CONFIGURE, &cfg) ? -errno : 0;
		}
		if (!ret) {
			fs->loop = true;
			fs->direct_io = cfg.info.lo_flags & LO_FLAGS_DIRECT_IO;
			break;
		}
		pn_journal_done("loop", fs->dev);
		close(lfd);
		lfd = -1;
		if (ret != -EBUSY) {
			pn_error(ret, "%s: LOOP_CONFIGURE: %s", fs->dev, strerror(-ret));
			break;
		}
	}
	close(ctl);
out:
	close(ffd);
	/* With autoclear the device detaches at its last close after umount;
	 * the mount holds it from here on.  Kept open until mounted. */
	return ret ? ret : lfd;
}

static int make_image(struct pn_scratch_fs *fs, const char *image_dir, uint64_t bytes)
{
	int fd, ret;

	snprintf(fs->image, sizeof(fs->image), "%s/pnbench-scratch-XXXXXX", image_dir);
	fd = mkstemp(fs->image);
	if (fd < 0) {
		int err = -errno;

		fs->image[0] = '\0';
		return pn_error(err, "image_dir %s: cannot create an image file: %s", image_dir,
				strerror(-err));
	}
	/* journaled the moment mkstemp names it (it cannot be named before) */
	ret = pn_journal_add("image", fs->image, NULL);
	if (ret) {
		close(fd);
		return ret;
	}
	if (ftruncate(fd, (off_t)bytes)) {
		int err = -errno;

		close(fd);
		return pn_error(err, "%s: ftruncate to %llu bytes: %s", fs->image,
				(unsigned long long)bytes, strerror(-err));
	}
	close(fd);
	return 0;
}

static int device_size(const char *dev, uint64_t *bytes)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return pn_error(-errno, "device %s: %s", dev, strerror(errno));
	if (ioctl(fd, BLKGETSIZE64, bytes))
		ret = pn_error(-errno, "device %s: not a block device (BLKGETSIZE64: %s)", dev,
			       strerror(errno));
	close(fd);
	return ret;
}

int pn_scratch_fs_make(struct pn_scratch_fs *fs, const char *device, const char *image_dir,
		       uint64_t bytes, const char *fstype)
{
	int lfd = -1, ret;

	memset(fs, 0, sizeof(*fs));
	snprintf(fs->fstype, sizeof(fs->fstype), "%s", fstype);
	if (device && *device) {
		snprintf(fs->dev, sizeof(fs->dev), "%s", device);
		ret = device_size(device, &fs->bytes);
		if (ret)
			return ret;
		if (fs->bytes < bytes)
			return pn_error(-ENOSPC, "device %s holds %llu MiB, %llu MiB are needed",
					device, (unsigned long long)(fs->bytes >> 20),
					(unsigned long long)(bytes >> 20));
		ret = mkfs(device, fstype);
	} else {
		fs->bytes = bytes;
		ret = make_image(fs, image_dir, bytes);
		if (!ret)
			ret = mkfs(fs->image, fstype);
		if (!ret) {
			lfd = loop_attach(fs);
			ret = lfd < 0 ? lfd : 0;
		}
	}
	if (ret)
		goto fail;
	snprintf(fs->mnt, sizeof(fs->mnt), "%s/pnbench-mnt-XXXXXX",
		 image_dir && *image_dir ? image_dir : "/tmp");
	if (!mkdtemp(fs->mnt)) {
		ret = pn_error(-errno, "mkdtemp %s: %s", fs->mnt, strerror(errno));
		fs->mnt[0] = '\0';
		goto fail;
	}
	ret = pn_journal_add("mountdir", fs->mnt, NULL);
	if (!ret)
		ret = pn_journal_add("mount", fs->mnt, NULL);
	if (ret)
		goto fail;
	if (mount(fs->dev, fs->mnt, fstype, MS_NOATIME, NULL)) {
		ret = pn_error(-errno, "mount -t %s %s %s: %s", fstype, fs->dev, fs->mnt,
			       strerror(errno));
		goto fail;
	}
	fs->mounted = true;
	if (lfd >= 0)
		close(lfd);
	return 0;
fail:
	if (lfd >= 0) {
		ioctl(lfd, LOOP_CLR_FD, 0);
		close(lfd);
	}
	pn_scratch_fs_remove(fs);
	return ret;
}

/*
 * Each step leaves the journal (journal.h) once done, so `pnbench recover`
 * retries only what failed.  The loop device (autoclear) goes with the last
 * user of the mount: it leaves the journal with the mount.
 */
void pn_scratch_fs_remove(struct pn_scratch_fs *fs)
{
	if (fs->mounted) {
		/* A lazy detach if something still holds it; the loop device
		 * then clears itself when the last user goes. */
		if (umount2(fs->mnt, 0) && umount2(fs->mnt, MNT_DETACH))
			pn_warn("umount %s: %s", fs->mnt, strerror(errno));
		else
			pn_journal_done("mount", fs->mnt);
		fs->mounted = false;
	} else if (fs->mnt[0]) {
		pn_journal_done("mount", fs->mnt); /* the mount never happened */
	}
	if (fs->loop && fs->image[0])
		pn_journal_done("loop", fs->dev);
	if (fs->mnt[0] && rmdir(fs->mnt) && errno != ENOENT)
		pn_warn("rmdir %s: %s", fs->mnt, strerror(errno));
	else if (fs->mnt[0])
		pn_journal_done("mountdir", fs->mnt);
	fs->mnt[0] = '\0';
	if (fs->image[0] && unlink(fs->image) && errno != ENOENT)
		pn_warn("unlink %s: %s", fs->image, strerror(errno));
	else if (fs->image[0])
		pn_journal_done("image", fs->image);
	fs->image[0] = '\0';
}
