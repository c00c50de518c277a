/* SPDX-License-Identifier: MIT */
/*
 * lab-restore.c - the lab host from a saved state (lab-session.h,
 * lab-state.h, docs/lab.md "The saved state").
 *
 * Files, in the image cache's overlay directory (readable by QEMU's user):
 *   lab-state-HASH.save   the state: the RAM and devices of a lab that
 *                         was ready, written by libvirt (virDomainSave)
 *   lab-state-HASH.json   its sidecar: what it is for, its size, its disk
 *   lab-ready-HASH-T.qcow2 its frozen disk, an overlay of the lab image
 *                         that the saved lab ran on; nothing writes it
 *                         after the save
 * A restored lab runs on the run directory's kept disk, a new overlay on
 * the frozen one: the disk it finds is the disk it was saved with.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lab-session.h"
#include "lab-state.h"
#include "util.h"

#define LAB_RESTORE_HELLO_S 30.0 /* a restored lab's agent to answer */
#define LAB_RESTORE_CHECK_S 60.0 /* then /dev/kvm and libvirtd inside */

/* The saved state of this lab: its key's parts and its files. */
struct lab_saved {
	struct lab_state_key key;
	char image[512], vcpus[32], memory[32], qemu[64], libvirt[64];
	char hash[17];
	char domain[64];   /* the saved lab's name: LAB_SAVED_DOMAIN-HASH */
	const char *dir;   /* l->gf.overlay_dir */
	char *save, *side; /* owned */
};

static int saved_init(struct lab *l, struct lab_saved *s)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (stat(l->gf.disk, &st) < 0)
		return err_errno("cannot stat '%s'", l->gf.disk);
	/* The image by name (its recipe hash), size and time. */
	snprintf(s->image, sizeof(s->image), "%s %lld %lld",
		 path_base(l->gf.disk), (long long)st.st_size,
		 (long long)st.st_mtime);
	snprintf(s->vcpus, sizeof(s->vcpus), "%ld", l->cfg->lab_vcpus);
	snprintf(s->memory, sizeof(s->memory), "%llu",
		 (unsigned long long)l->cfg->lab_memory);
	vm_versions(l->cfg->uri, s->libvirt, sizeof(s->libvirt), s->qemu,
		    sizeof(s->qemu));
	s->key.part[LAB_STATE_IMAGE] = s->image;
	s->key.part[LAB_STATE_KERNEL] = path_base(l->gf.kernel);
	s->key.part[LAB_STATE_INITRD] = path_base(l->gf.initrd);
	s->key.part[LAB_STATE_CMDLINE] = LAB_CMDLINE;
	s->key.part[LAB_STATE_CPU] = l->cfg->lab_cpu;
	s->key.part[LAB_STATE_FEATURES] = l->cfg->lab_cpu_features;
	s->key.part[LAB_STATE_VCPUS] = s->vcpus;
	s->key.part[LAB_STATE_MEMORY] = s->memory;
	s->key.part[LAB_STATE_QEMU] = s->qemu;
	s->key.part[LAB_STATE_LIBVIRT] = s->libvirt;
	lab_state_key_hash(&s->key, s->hash);
	snprintf(s->domain, sizeof(s->domain), LAB_SAVED_DOMAIN "-%s",
		 s->hash);
	s->dir = l->gf.overlay_dir;
	s->save = xasprintf("%s/" LAB_STATE_PREFIX "-%s.save", s->dir, s->hash);
	s->side = xasprintf("%s/" LAB_STATE_PREFIX "-%s.json", s->dir, s->hash);
	return 0;
}

static void saved_release(struct lab_saved *s)
{
	free(s->save);
	free(s->side);
}

/* NAME is one of the saved-state files, but not KEEP's (NULL: none). */
static bool saved_file(const char *name, const char *keep)
{
	if (strncmp(name, LAB_STATE_PREFIX "-", strlen(LAB_STATE_PREFIX) + 1) &&
	    strncmp(name, LAB_READY_PREFIX "-", strlen(LAB_READY_PREFIX) + 1))
		return false;
	return !keep || !strstr(name, keep);
}

/*
 * Without a state of this key: why, from another one there (the first
 * found), into WHY.
 */
static void saved_other_why(const struct lab_saved *s, char *why, size_t len)
{
	DIR *d = opendir(s->dir);
	struct dirent *e;

	snprintf(why, len, "none saved yet");
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char *path, other[256];
		json_t *side;

		if (!saved_file(e->d_name, NULL) || n < 5 ||
		    strcmp(e->d_name + n - 5, ".json"))
			continue;
		path = xasprintf("%s/%s", s->dir, e->d_name);
		side = json_load_file(path, 0, NULL);
		if (lab_state_check(&s->key, side, 0, other, sizeof(other)) ==
		    -ESTALE)
			snprintf(why, len,
				 "the one there ('%s') is not for "
				 "this lab: %s",
				 e->d_name, other);
		json_decref(side);
		free(path);
		break;
	}
	if (d)
		closedir(d);
}

/*
 * This lab's state and its sidecar (*SIDE, a new ref, when there is one):
 * 0 when it may be restored, else lab_state_check()'s errno with WHY
 * (-ENOENT and no *SIDE: none of this key).
 */
static int saved_find(const struct lab_saved *s, json_t **side, char *why,
		      size_t len)
{
	json_error_t je;
	struct stat st;

	*side = json_load_file(s->side, 0, &je);
	if (!*side) {
		if (access(s->side, F_OK) < 0) {
			saved_other_why(s, why, len);
			return -ENOENT;
		}
		snprintf(why, len, "its record is not json: %s", je.text);
		return -EBADMSG;
	}
	return lab_state_check(&s->key, *side,
			       stat(s->save, &st) == 0 ? st.st_size : -1, why,
			       len);
}

/* Remove the saved-state files in S's directory but KEEP's (NULL: all). */
static void saved_remove(const struct lab_saved *s, const char *keep)
{
	DIR *d = opendir(s->dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *path;

		if (!saved_file(e->d_name, keep))
			continue;
		path = xasprintf("%s/%s", s->dir, e->d_name);
		unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
}

/* The saved state is refused or failed: said, removed. */
static void saved_discard(const struct lab_saved *s, const char *why)
{
	warn("lab: the saved state '%s' is discarded: %s; booting the lab "
	     "afresh",
	     s->save, why);
	saved_remove(s, NULL);
}

/*
 * Restore the lab from S (SIDE its sidecar) as NAME: 0 when ready; -EBUSY
 * when it runs already (not discarded); else the lab is destroyed and the
 * reason in WHY.
 */
static int saved_restore(struct lab *l, const struct lab_saved *s,
			 const json_t *side, const char *console, char *why,
			 size_t len)
{
	char *frozen = xasprintf("%s/%s", s->dir, lab_state_disk(side));
	char *tag = lab_disk_tag_new(l), *cmd;
	struct vm_spec spec;
	json_t *res = NULL;
	double t0;
	int ret;

	free(l->overlay);
	l->overlay = xasprintf("%s/kept-%s.qcow2", s->dir, tag);
	free(tag);
	l->overlay_reused = false;
	ret = guest_overlay_on(frozen, l->overlay);
	free(frozen);
	if (ret < 0) {
		snprintf(why, len, "no disk on its frozen disk");
		return ret;
	}
	lab_spec_fill(l, &spec, s->domain, l->overlay, console);
	note("lab: restoring the lab host from its saved state '%s' (saved "
	     "%s)",
	     s->save, json_string_value(json_object_get(side, "saved")) ?: "?");
	t0 = mono_now();
	ret = vm_life_restore(&l->life, l->conn, s->save, &spec, l->alog);
	if (ret == -EBUSY)
		return ret;
	if (ret < 0) {
		snprintf(why, len, "libvirt could not restore it (above)");
		return ret;
	}
	ret = vm_life_hello(&l->life, LAB_RESTORE_HELLO_S, &res, why, len);
	if (ret < 0)
		goto fail;
	l->boot_to_hello_s = mono_now() - t0;
	json_decref(l->hello);
	l->hello = res;
	/* Its clock is the saved one: set it; then /dev/kvm and libvirtd. */
	cmd = xasprintf("date -s @%lld >/dev/null && test -c /dev/kvm && "
			"n=0; until virsh -q -c qemu:///system version "
			">/dev/null 2>&1; do n=$((n+1)); [ $n -lt %d ] || "
			"exit 1; sleep 1; done",
			(long long)time(NULL), (int)LAB_RESTORE_CHECK_S);
	ret = lab_sh(l, "checking the restored lab", cmd,
		     LAB_RESTORE_CHECK_S + 30, NULL);
	free(cmd);
	if (ret != 0) {
		snprintf(why, len,
			 "no /dev/kvm or no libvirtd answering in "
			 "the restored lab");
		ret = -EIO;
		goto fail;
	}
	l->boot_to_ready_s = mono_now() - t0;
	l->restored = true;
	note("lab: restored from its saved state: running after %.1f s "
	     "(libvirt), its agent answered after %.1f s, ready after %.1f s",
	     l->life.libvirt_s, l->boot_to_hello_s, l->boot_to_ready_s);
	return 0;
fail:
	l->life.agent_dead = true;
	vm_life_down(&l->life, 0, 0, NULL);
	return ret;
}

/* Write S's sidecar (SIDE) atomically. */
static int saved_write_side(const struct lab_saved *s, json_t *side)
{
	char *text = json_dumps(side, JSON_INDENT(2));
	int ret;

	if (!text)
		return -ENOMEM;
	ret = write_file_atomic(s->side, text, strlen(text));
	free(text);
	return ret < 0 ? err_code(ret, "cannot write '%s'", s->side) : 0;
}

/* The booted lab's state saved (the domain stops) as S with disk DISK. */
static int saved_save(struct lab *l, const struct lab_saved *s,
		      const char *disk, double ready_s)
{
	char *tmp = xasprintf("%s.tmp", s->save), now[32];
	double t0 = mono_now(), save_s;
	json_t *side = NULL;
	struct stat st;
	int ret;

	unlink(tmp);
	ret = vm_save(l->life.vm, tmp);
	save_s = mono_now() - t0;
	vm_life_down(&l->life, 0, 0, NULL);
	if (ret == 0 && stat(tmp, &st) < 0)
		ret = err_errno("cannot stat '%s'", tmp);
	if (ret == 0 && rename(tmp, s->save) < 0)
		ret = err_errno("cannot rename '%s'", tmp);
	if (ret < 0) {
		unlink(tmp);
		goto out;
	}
	iso8601_now(now, sizeof(now));
	side = lab_state_sidecar_new(&s->key, (long long)st.st_size, disk, now,
				     save_s, ready_s);
	ret = saved_write_side(s, side);
	if (ret == 0)
		note("lab: its state is saved for later runs in %.1f s (%.2f "
		     "GiB): '%s'",
		     save_s, (double)st.st_size / (1 << 30), s->save);
out:
	json_decref(side);
	free(tmp);
	return ret;
}

/*
 * Boot the lab afresh as NAME on a new frozen disk, to ready, and save its
 * state as S (the domain stops).  Other keys' files go.
 */
static int saved_make(struct lab *l, const struct lab_saved *s,
		      const char *console)
{
	char *disk = xasprintf(LAB_READY_PREFIX "-%s-%lld.qcow2", s->hash,
			       (long long)time(NULL));
	char *frozen = xasprintf("%s/%s", s->dir, disk), why[512];
	struct vm_spec spec;
	json_t *res = NULL;
	double t0;
	int ret;

	saved_remove(s, NULL);
	ret = guest_overlay_on(l->gf.disk, frozen);
	if (ret < 0)
		goto out;
	/* The state keeps this name: every lab restored from it has it. */
	lab_spec_fill(l, &spec, s->domain, frozen, console);
	note("lab: booting the lab host to save its state for later runs: "
	     "TCG, %s %s, %ld vCPUs, %.1f GiB",
	     l->cfg->lab_cpu, l->cfg->lab_cpu_features, l->cfg->lab_vcpus,
	     (double)l->cfg->lab_memory / (1 << 30));
	ret = vm_life_boot(&l->life, l->conn, &spec, l->alog, 0);
	if (ret < 0)
		goto out;
	t0 = l->life.t_start;
	ret =
	    vm_life_hello(&l->life, LAB_BOOT_TIMEOUT_S, &res, why, sizeof(why));
	json_decref(res);
	if (ret < 0) {
		err("lab: no hello from the lab host's agent: %s; console: %s",
		    why, console);
		goto out;
	}
	note("lab: its agent answered after %.0f s; waiting for libvirtd "
	     "inside",
	     mono_now() - t0);
	ret = lab_wait_libvirtd(l, console);
	if (ret < 0)
		goto out;
	note("lab: ready %.0f s after its start; saving its state",
	     mono_now() - t0);
	ret = saved_save(l, s, disk, mono_now() - t0);
	if (ret == 0)
		l->state_saved = true;
out:
	vm_life_down(&l->life, 0, 0, NULL);
	if (ret < 0)
		saved_remove(s, NULL);
	free(frozen);
	free(disk);
	return ret;
}

int lab_boot_restored(struct lab *l, const char *console)
{
	struct lab_saved s;
	json_t *side = NULL;
	char why[512];
	int ret;

	ret = saved_init(l, &s);
	if (ret < 0)
		return ret;
	ret = saved_find(&s, &side, why, sizeof(why));
	if (ret == 0) {
		ret =
		    saved_restore(l, &s, side, console, why, sizeof(why));
		if (ret == 0 || ret == -EBUSY)
			goto out;
		saved_discard(&s, why);
	} else if (ret == -ENOENT && !side) {
		note("lab: no saved state for this lab (%s): booting it "
		     "afresh and saving one",
		     why);
	} else {
		saved_discard(&s, why);
	}
	json_decref(side);
	side = NULL;
	ret = saved_make(l, &s, console);
	if (ret == 0)
		ret = saved_find(&s, &side, why, sizeof(why));
	if (ret == 0)
		ret =
		    saved_restore(l, &s, side, console, why, sizeof(why));
	if (ret < 0 && ret != -EBUSY && l->state_saved)
		saved_discard(&s, why);
out:
	if (ret < 0)
		note("lab: not restored: booting it as without a saved "
		     "state");
	json_decref(side);
	saved_release(&s);
	return ret;
}
