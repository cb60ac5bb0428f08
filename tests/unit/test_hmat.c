// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_hmat.c - the declared (initiator, target) matrix from replayed sysfs
 * trees: the QEMU hmat=on capture with two initiators, the trees without
 * HMAT, and a synthetic tree where access0 lists a CPU-less initiator that
 * access1 does not; plus VM detection on the same trees.
 *
 * Expected values are read from the fixture's own files here, independently
 * of the code under test, where a recapture could change them.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "core/sys/hmat.h"
#include "core/sys/topology.h"
#include "core/sys/virt.h"

static uint64_t fixture_u64(const char *rel)
{
	uint64_t v = 0;

	assert_int_equal(pn_read_u64(rel, &v, false), 0);
	return v;
}

static void load(struct pn_topology *t, struct pn_hmat_table *h)
{
	assert_int_equal(pn_topology_load(t), 0);
	assert_int_equal(pn_hmat_load(t, h), 0);
}

static void test_qemu_hmat(void **state)
{
	static const int best[4] = { 0, 1, 0, 1 }; /* target -> its HMAT initiator */
	struct pn_topology t;
	struct pn_hmat_table h;
	const char *src;

	(void)state;
	use_fixture("qemu-hmat-4node");
	load(&t, &h);
	assert_int_equal(h.ninit, 2);
	assert_int_equal(h.inits[0], 0);
	assert_int_equal(h.inits[1], 1);
	assert_int_equal(h.ntarget, 4);
	assert_true(h.any_sysfs);
	assert_true(h.any_hwloc);
	for (int tg = 0; tg < 4; tg++) {
		char rel[128];
		uint64_t lat, bw;

		snprintf(rel, sizeof(rel),
			 "/sys/devices/system/node/node%d/access1/initiators/"
			 "read_latency",
			 tg);
		lat = fixture_u64(rel);
		snprintf(rel, sizeof(rel),
			 "/sys/devices/system/node/node%d/access1/initiators/"
			 "read_bandwidth",
			 tg);
		bw = fixture_u64(rel);
		for (int in = 0; in < 2; in++) {
			const struct pn_hmat_cell *c = pn_hmat_cell(&h, in, tg);

			assert_non_null(c);
			assert_int_equal(c->initiator, in);
			assert_int_equal(c->target, tg);
			if (in != best[tg]) {
				/* Not a best initiator: sysfs declares nothing for it. */
				assert_false(c->listed[0] || c->listed[1]);
				assert_int_equal(c->sysfs[1].read_latency_ns, 0);
				assert_int_equal(pn_hmat_read_latency(c, &src), 0);
				assert_string_equal(src, "");
				/* hwloc reads the same sysfs: best initiators only */
				assert_int_equal(c->hwloc[PN_HW_READ_LATENCY], 0);
				continue;
			}
			assert_true(c->listed[0] && c->listed[1]);
			assert_int_equal(c->sysfs[1].read_latency_ns, lat);
			assert_int_equal(c->sysfs[0].read_bandwidth_mbps, bw);
			assert_int_equal(pn_hmat_read_latency(c, &src), lat);
			assert_string_equal(src, "access1");
			assert_int_equal(pn_hmat_read_bandwidth(c, &src), bw);
			/* hwloc read the same files for the same initiator. */
			assert_int_equal(c->hwloc[PN_HW_READ_LATENCY], lat);
			assert_int_equal(c->hwloc[PN_HW_READ_BANDWIDTH], bw);
		}
	}
	/* The capture's declared values (capture-qemu-hmat.sh): a CXL-like
	 * expander at 250 ns beside 80 ns local DRAM. */
	assert_int_equal(pn_hmat_cell(&h, 0, 0)->sysfs[1].read_latency_ns, 80);
	assert_int_equal(pn_hmat_cell(&h, 0, 2)->sysfs[1].read_latency_ns, 250);
	assert_int_equal(pn_hmat_cell(&h, 1, 3)->sysfs[0].write_latency_ns, 250);
	assert_null(pn_hmat_cell(&h, 2, 0)); /* memory-only nodes initiate nothing */
	pn_hmat_free(&h);
	pn_topology_free(&t);
}

/*
 * hwloc's memattrs for every initiator, not only the best: an XML (as from
 * another OS, or annotated with hwloc-annotate) that also declares 400 ns
 * from node 1 to node 2, as the HMAT of the capture does and sysfs cannot
 * show.  The generic Latency attribute only, so the read-latency lookup
 * falls back to it.
 */
static void test_hwloc_every_initiator(void **state)
{
	static const char anchor[] = "<memattr name=\"Latency\" flags=\"6\">\n";
	static const char extra[] = "    <memattr_value target_obj_type=\"NUMANode\" "
				    "target_obj_gp_index=\"%d\" value=\"400\" "
				    "initiator_cpuset=\"0x00000002\"/>\n";
	struct pn_topology t;
	struct pn_hmat_table h;
	const struct pn_hmat_cell *c;
	const char *src, *at;
	char *xml, line[256], gp[32];
	size_t pre;

	(void)state;
	use_fixture("qemu-hmat-4node");
	assert_int_equal(pn_topology_load(&t), 0);
	assert_non_null(t.hwloc_xml);
	/* node 2's gp_index: the NUMANode object with os_index 2 */
	at = strstr(t.hwloc_xml, "type=\"NUMANode\" os_index=\"2\"");
	assert_non_null(at);
	at = strstr(at, "gp_index=\"");
	assert_non_null(at);
	snprintf(gp, sizeof(gp), "%.*s", (int)strcspn(at + 10, "\""), at + 10);
	snprintf(line, sizeof(line), extra, atoi(gp));
	at = strstr(t.hwloc_xml, anchor);
	assert_non_null(at);
	pre = (size_t)(at - t.hwloc_xml) + strlen(anchor);
	xml = pn_xmalloc(strlen(t.hwloc_xml) + strlen(line) + 1);
	memcpy(xml, t.hwloc_xml, pre);
	strcpy(xml + pre, line);
	strcat(xml, t.hwloc_xml + pre);
	free(t.hwloc_xml);
	t.hwloc_xml = xml;
	assert_int_equal(pn_hmat_load(&t, &h), 0);
	c = pn_hmat_cell(&h, 1, 2);
	assert_false(c->listed[0] || c->listed[1]);
	assert_int_equal(c->hwloc[PN_HW_LATENCY], 400);
	assert_int_equal(c->hwloc[PN_HW_READ_LATENCY], 0);
	assert_int_equal(pn_hmat_read_latency(c, &src), 400);
	assert_string_equal(src, "hwloc");
	/* the best initiator's sysfs value still wins for its own pair */
	assert_int_equal(pn_hmat_read_latency(pn_hmat_cell(&h, 0, 2), &src), 250);
	assert_string_equal(src, "access1");
	pn_hmat_free(&h);
	pn_topology_free(&t);
}

static void test_no_hmat(void **state)
{
	static const struct {
		const char *tree;
		int ninit, ntarget;
	} cases[] = {
		{ "laptop-1node", 1, 1 },
		{ "qemu-3node-memonly", 1, 3 },
		{ "qemu-sparse-0-2-5", 1, 3 },
	};

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(cases); i++) {
		struct pn_topology t;
		struct pn_hmat_table h;

		use_fixture(cases[i].tree);
		load(&t, &h);
		assert_int_equal(h.ninit, cases[i].ninit);
		assert_int_equal(h.ntarget, cases[i].ntarget);
		assert_false(h.any_sysfs);
		for (int k = 0; k < h.ninit * h.ntarget; k++) {
			const char *src;

			assert_int_equal(pn_hmat_read_latency(&h.cells[k], &src), 0);
		}
		pn_hmat_free(&h);
		pn_topology_free(&t);
	}
	/* sparse ids keep their names */
	{
		struct pn_topology t;
		struct pn_hmat_table h;

		use_fixture("qemu-sparse-0-2-5");
		load(&t, &h);
		assert_int_equal(h.targets[2], 5);
		assert_non_null(pn_hmat_cell(&h, 0, 5));
		assert_null(pn_hmat_cell(&h, 0, 1));
		pn_hmat_free(&h);
		pn_topology_free(&t);
	}
}

/* ---- a synthetic tree: node 2 is a CPU-less initiator (an accelerator) ---- */

static void put(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX], cmd[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void link_node(const char *root, int target, int cls, int init)
{
	char path[PATH_MAX], to[64];

	snprintf(path, sizeof(path), "%s/sys/devices/system/node/node%d/access%d/initiators/node%d",
		 root, target, cls, init);
	snprintf(to, sizeof(to), "../../../node%d", init);
	assert_int_equal(symlink(to, path), 0);
}

static void access_values(const char *root, int target, int cls, const char *lat, const char *bw)
{
	static const char *const f[] = { "read_latency", "write_latency", "read_bandwidth",
					 "write_bandwidth" };

	for (int i = 0; i < 4; i++) {
		char rel[160];

		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/access%d/initiators/%s",
			 target, cls, f[i]);
		put(root, rel, i < 2 ? lat : bw);
	}
}

static void test_synthetic_access0_only(void **state)
{
	char root[] = "/tmp/pn-hmat-XXXXXX", cmd[64];
	struct pn_topology t;
	struct pn_hmat_table h;
	const struct pn_hmat_cell *c;
	const char *src;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "/sys/devices/system/node/online", "0-2\n");
	put(root, "/sys/devices/system/node/possible", "0-2\n");
	put(root, "/sys/devices/system/node/has_cpu", "0\n");
	put(root, "/sys/devices/system/node/has_memory", "0-1\n");
	put(root, "/sys/devices/system/node/has_normal_memory", "0-1\n");
	for (int n = 0; n < 3; n++) {
		char rel[128], txt[128];

		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/cpulist", n);
		put(root, rel, n ? "\n" : "0\n");
		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/meminfo", n);
		snprintf(txt, sizeof(txt), "Node %d MemTotal: %d kB\n", n, n < 2 ? 1048576 : 0);
		put(root, rel, txt);
	}
	/* node 1: access0's best initiator is the accelerator (node 2, 150 ns),
	 * access1's is the CPU node (300 ns). */
	access_values(root, 1, 0, "150\n", "30000\n");
	link_node(root, 1, 0, 2);
	access_values(root, 1, 1, "300\n", "12000\n");
	link_node(root, 1, 1, 0);
	pn_sysroot_set(root);
	load(&t, &h);
	assert_int_equal(h.ninit, 2); /* node 0 (CPUs) and node 2 (listed) */
	assert_int_equal(h.inits[1], 2);
	c = pn_hmat_cell(&h, 2, 1);
	assert_non_null(c);
	assert_true(c->listed[0] && !c->listed[1]);
	assert_int_equal(pn_hmat_read_latency(c, &src), 150);
	assert_string_equal(src, "access0");
	c = pn_hmat_cell(&h, 0, 1);
	assert_true(!c->listed[0] && c->listed[1]);
	assert_int_equal(pn_hmat_read_latency(c, &src), 300);
	assert_string_equal(src, "access1");
	assert_int_equal(pn_hmat_read_bandwidth(c, &src), 12000);
	c = pn_hmat_cell(&h, 0, 0);
	assert_int_equal(pn_hmat_read_latency(c, &src), 0);
	pn_hmat_free(&h);
	pn_topology_free(&t);
	pn_sysroot_set("");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* The research note's classes: real CXL is 1.5-4x local, above 4x FPGA-class. */
static void test_latency_class(void **state)
{
	(void)state;
	assert_string_equal(pn_latency_class(1.0, true, false), "local");
	assert_string_equal(pn_latency_class(1.2, false, false), "near (< 1.5x)");
	assert_string_equal(pn_latency_class(1.5, false, false), "CXL range (1.5-4x)");
	assert_string_equal(pn_latency_class(4.0, false, false), "CXL range (1.5-4x)");
	assert_string_equal(pn_latency_class(4.01, false, false), "FPGA-class (> 4x local)");
	assert_string_equal(pn_latency_class(NAN, false, false), "no local reference");
	assert_string_equal(pn_latency_class(3.0, false, true), "meaningless (emulated)");
	assert_string_equal(pn_latency_class(1.0, true, true), "meaningless (emulated)");
}

static void test_virt(void **state)
{
	struct pn_virt v;

	(void)state;
	/* The TCG guest: hypervisor flag, "QEMU Virtual CPU", tsc clock. */
	use_fixture("qemu-hmat-4node");
	pn_virt_detect(&v, false);
	assert_int_equal(v.kind, PN_VIRT_EMULATED);
	assert_non_null(strstr(v.evidence, "cpuinfo-flag"));
	assert_string_equal(pn_virt_kind_name(v.kind), "emulated");
	/* This development VM, captured: the hypervisor flag only. */
	use_fixture("laptop-1node");
	pn_virt_detect(&v, false);
	assert_int_equal(v.kind, PN_VIRT_HYPERVISOR);
	/* A tree without /proc/cpuinfo says nothing. */
	use_fixture("malformed/bad-node-meminfo");
	pn_virt_detect(&v, false);
	assert_int_equal(v.kind, PN_VIRT_NONE);
	/* Live: whatever it is, the evidence agrees with the verdict. */
	pn_sysroot_set("");
	pn_virt_detect(&v, true);
	printf("this host: virt %s (%s) vendor \"%s\"\n", pn_virt_kind_name(v.kind), v.evidence,
	       v.vendor);
	assert_true(v.kind == PN_VIRT_NONE || *v.evidence);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu_hmat),     cmocka_unit_test(test_hwloc_every_initiator),
		cmocka_unit_test(test_no_hmat),	      cmocka_unit_test(test_synthetic_access0_only),
		cmocka_unit_test(test_latency_class), cmocka_unit_test(test_virt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
