/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the lab's saved state (orchestrator/lab/lab-state.c): which
 * sidecar may be restored into which lab, each refusal with its own
 * reason; and the saved domain XML retargeted for a restore
 * (orchestrator/guest/domxml.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lab-state.h"
#include "vm.h"

static struct lab_state_key key(void)
{
	struct lab_state_key k = {
	    .part = {
		[LAB_STATE_IMAGE] = "lab-8e61dddae81d785e.qcow2 1667891200 1",
		[LAB_STATE_KERNEL] = "lab-8e61dddae81d785e.vmlinuz",
		[LAB_STATE_INITRD] = "lab-8e61dddae81d785e.initrd",
		[LAB_STATE_CMDLINE] = "console=ttyS0 root=/dev/vda rw",
		[LAB_STATE_CPU] = "EPYC",
		[LAB_STATE_FEATURES] = "+svm +npt",
		[LAB_STATE_VCPUS] = "2",
		[LAB_STATE_MEMORY] = "3221225472",
		[LAB_STATE_QEMU] = "7.2.22",
		[LAB_STATE_LIBVIRT] = "9.0.0",
	    }};

	return k;
}

#define STATE_BYTES 123456789LL

static json_t *sidecar(void)
{
	struct lab_state_key k = key();

	return lab_state_sidecar_new(&k, STATE_BYTES, "lab-ready-x-1.qcow2",
				     "2026-12-04T15:00:00Z", 2.5, 30.0);
}

/* One row: what is changed, and the refusal it must get. */
struct row {
	const char *what;
	int part;	   /* a part of the lab to change, or -1 */
	const char *value; /* its value in this lab */
	const char *field; /* or a sidecar field to set (json text) */
	const char *json;
	long long bytes; /* the state file's size */
	int ret;
	const char *why; /* a substring of the reason */
};

static const struct row rows[] = {
    {"the same lab", -1, NULL, NULL, NULL, STATE_BYTES, 0, ""},
    {"another image", LAB_STATE_IMAGE, "lab-0000000000000000.qcow2 1 2", NULL,
     NULL, STATE_BYTES, -ESTALE,
     "it is for the lab image lab-8e61dddae81d785e.qcow2 1667891200 1, "
     "this is lab-0000000000000000.qcow2 1 2"},
    {"another QEMU", LAB_STATE_QEMU, "8.0.0", NULL, NULL, STATE_BYTES, -ESTALE,
     "it is for QEMU 7.2.22, this is 8.0.0"},
    {"an unknown QEMU", LAB_STATE_QEMU, "", NULL, NULL, STATE_BYTES, -ESTALE,
     "it is for QEMU 7.2.22, this is (none)"},
    {"another libvirt", LAB_STATE_LIBVIRT, "10.0.0", NULL, NULL, STATE_BYTES,
     -ESTALE, "it is for libvirt 9.0.0, this is 10.0.0"},
    {"more memory", LAB_STATE_MEMORY, "4294967296", NULL, NULL, STATE_BYTES,
     -ESTALE, "[lab] memory (bytes) 3221225472"},
    {"other vCPUs", LAB_STATE_VCPUS, "4", NULL, NULL, STATE_BYTES, -ESTALE,
     "[lab] vcpus 2, this is 4"},
    {"other features", LAB_STATE_FEATURES, "+svm +npt -pdpe1gb", NULL, NULL,
     STATE_BYTES, -ESTALE, "[lab] cpu_features +svm +npt, this"},
    {"a truncated file", -1, NULL, NULL, NULL, 4096, -EMSGSIZE,
     "its state file is 4096 bytes, 123456789 when saved (truncated"},
    {"a longer file", -1, NULL, NULL, NULL, STATE_BYTES + 1, -EMSGSIZE,
     "123456790 bytes"},
    {"no state file", -1, NULL, NULL, NULL, -1, -ENOENT,
     "its state file is missing"},
    {"a sidecar edited to another QEMU", -1, NULL, "parts",
     NULL /* set in the test */, STATE_BYTES, -ESTALE,
     "it is for QEMU 7.2.0, this is 7.2.22"},
    {"another format", -1, NULL, "format", "2", STATE_BYTES, -EBADMSG,
     "not a saved state's of format 1"},
    {"no size", -1, NULL, "state_bytes", "\"12\"", STATE_BYTES, -EBADMSG,
     "format 1"},
    {"a disk with a slash", -1, NULL, "disk", "\"../x.qcow2\"", STATE_BYTES,
     -EBADMSG, "format 1"},
};

static void test_check_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct lab_state_key want = key();
		json_t *side = sidecar();
		char why[512] = "";
		int ret;

		if (r->part >= 0)
			want.part[r->part] = r->value;
		if (r->field && !strcmp(r->field, "parts"))
			json_object_set_new(json_object_get(side, "parts"),
					    "qemu", json_string("7.2.0"));
		else if (r->field)
			json_object_set_new(
			    side, r->field,
			    json_loads(r->json, JSON_DECODE_ANY, NULL));
		ret = lab_state_check(&want, side, r->bytes, why, sizeof(why));
		if (ret != r->ret || !strstr(why, r->why))
			fail_msg("row '%s': %d '%s', want %d '%s'", r->what,
				 ret, why, r->ret, r->why);
		json_decref(side);
	}
}

static void test_hash(void **state)
{
	struct lab_state_key a = key(), b = key();
	char ha[17], hb[17];

	(void)state;
	lab_state_key_hash(&a, ha);
	lab_state_key_hash(&b, hb);
	assert_string_equal(ha, hb);
	assert_int_equal(strlen(ha), 16);
	b.part[LAB_STATE_QEMU] = "8.0.0";
	lab_state_key_hash(&b, hb);
	assert_string_not_equal(ha, hb);
	/* Parts do not run into each other. */
	a.part[LAB_STATE_VCPUS] = "2";
	a.part[LAB_STATE_MEMORY] = "3";
	b = key();
	b.part[LAB_STATE_VCPUS] = "23";
	b.part[LAB_STATE_MEMORY] = "";
	lab_state_key_hash(&a, ha);
	lab_state_key_hash(&b, hb);
	assert_string_not_equal(ha, hb);
}

static const char saved_xml[] =
    "<domain type='qemu'><name>vmtax-lab-1-0</name>"
    "<uuid>0a1b2c3d-0000-4000-8000-000000000001</uuid>"
    "<devices><disk type='file' device='disk'><driver name='qemu' "
    "type='qcow2'/><source file='/c/lab-ready-x-1.qcow2'/><target "
    "dev='vda' bus='virtio'/></disk>"
    "<serial type='file'><source path='/r1/logs/lab.console.log' "
    "append='on'/><target port='0'/></serial>"
    "<console type='file'><source path='/r1/logs/lab.console.log' "
    "append='on'/><target type='serial' port='0'/></console>"
    "</devices></domain>";

static void test_retarget(void **state)
{
	char uuid[37], name[VM_NAME_MAX], why[256] = "", *x;

	(void)state;
	x = vm_domain_xml_retarget_new(saved_xml, "/c/kept-lab-a&b.qcow2",
				       "/r2/logs/lab.console.log", name, uuid,
				       why, sizeof(why));
	assert_non_null(x);
	assert_string_equal(uuid, "0a1b2c3d-0000-4000-8000-000000000001");
	assert_string_equal(name, "vmtax-lab-1-0");
	/* The name and UUID stay: libvirt refuses a restore under another. */
	assert_non_null(strstr(x, "<name>vmtax-lab-1-0</name>"));
	assert_non_null(strstr(x, "0a1b2c3d-0000-4000-8000-000000000001"));
	assert_non_null(strstr(x, "file=\"/c/kept-lab-a&amp;b.qcow2\""));
	assert_null(strstr(x, "lab-ready-x-1"));
	assert_null(strstr(x, "/r1/"));
	free(x);
	/* What is not a saved domain is refused with its reason. */
	assert_null(vm_domain_xml_retarget_new("<domain><name>a</name><uuid>"
					       "u</uuid><devices/></domain>",
					       "/d", "/c", name, uuid, why,
					       sizeof(why)));
	assert_non_null(strstr(why, "no vda disk"));
	assert_null(vm_domain_xml_retarget_new("not xml", "/d", "/c", name,
					       uuid, why, sizeof(why)));
	assert_non_null(strstr(why, "not a domain"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_check_table),
	    cmocka_unit_test(test_hash),
	    cmocka_unit_test(test_retarget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
