/* SPDX-License-Identifier: GPL-2.0-only */
/* recover.h - `pnbench recover` (recover.c). */
#ifndef PN_RECOVER_H
#define PN_RECOVER_H

/* Undo every stale journal, print what was done; the exit code. */
int pn_cmd_recover(int argc, char **argv);

#endif /* PN_RECOVER_H */
