/* SPDX-License-Identifier: MIT */
/*
 * image-disk-kinds.c - the disk image kinds' tables (image-disk-kinds.h).
 */
#include "guest-files.h"
#include "host.h"
#include "image.h"
#include "image-disk-kinds.h"
#include "proto.h"
#include "util.h"

/*
 * The agent starts before sysinit.target, once udev runs (it loads
 * virtio_console); the agent itself waits for its port and systemd restarts
 * it if the port never came.  Nothing here needs the network or a login.
 */
static const char agent_unit[] =
    "[Unit]\n"
    "Description=vmtax guest agent (virtio-serial " PROTO_PORT_NAME ")\n"
    "DefaultDependencies=no\n"
    "After=systemd-udevd.service systemd-modules-load.service "
    /* systemd-escape --path /dev/virtio-ports/PORT: only the '-' needs it */
    "dev-virtio\\x2dports-" PROTO_PORT_NAME ".device\n"
    "Before=sysinit.target shutdown.target\n"
    "Conflicts=shutdown.target\n"
    "\n"
    "[Service]\n"
    "Type=simple\n"
    "Environment=PATH=/opt/vmtax/bin:/usr/local/sbin:/usr/local/bin:"
    "/usr/sbin:/usr/bin:/sbin:/bin HOME=/root\n"
    "ExecStart=/usr/local/sbin/vmtax-agent\n"
    "Restart=always\n"
    "RestartSec=1\n"
    "StandardOutput=journal+console\n"
    "StandardError=journal+console\n"
    "\n"
    "[Install]\n"
    "WantedBy=sysinit.target\n";

/*
 * The lab host: libvirt and QEMU with their daemons started by their own
 * systemd units (libvirt-daemon-system enables them; systemd mounts
 * hugetlbfs on /dev/hugepages in sysinit, before they start), and the
 * run-time libraries of vmtax; sshd and ip(8) for 'vmtax lab up' (a lab
 * reached over ssh on a port of 127.0.0.1, docs/lab.md), which starts sshd
 * (nothing else does).  vmtax links libguestfs (guest-image/build/gfs.c),
 * so libguestfs0 is here for the loader only.  These are installed with
 * apt-get in the debootstrap'ed tree: debootstrap's own resolver fails on
 * libvirt-daemon-system's dbus/logind alternatives.
 */
static const char *const lab_packages[] = {
    "libvirt-daemon-system",
    "libvirt-daemon-driver-qemu",
    "libvirt-clients",
    "qemu-system-x86",
    "qemu-utils",
    "kmod",
    "libvirt0",
    "libjansson4",
    "libinih1",
    "libkmod2",
    "libxml2",
    "libguestfs0",
    "openssh-server",
    "iproute2",
};

/*
 * The lab from this host's packages (host-packages.h): lab_packages (but
 * libguestfs0, for the loader: its libraries only), what debootstrap's
 * image has for booting (systemd as init, udev, dbus for libvirtd, procps),
 * and build-essential (gcc, make, libc6-dev), which ccbuild's bare-metal
 * cells in the lab compile with and check for (configs/workloads/ccbuild.ini
 * packages =; debootstrap's lab has it from the workloads' packages).
 * A missing one means debootstrap.
 */
static const struct hostpkg_root lab_host_roots[] = {
    {"libvirt-daemon-system", false},
    {"libvirt-daemon-driver-qemu", false},
    {"libvirt-clients", false},
    {"qemu-system-x86", false},
    {"qemu-utils", false},
    {"kmod", false},
    {"libvirt0", false},
    {"libjansson4", false},
    {"libinih1", false},
    {"libkmod2", false},
    {"libxml2", false},
    {"libguestfs0", true},
    {"systemd", false},
    {"systemd-sysv", false},
    {"udev", false},
    {"dbus", false},
    {"procps", false},
    {"openssh-server", false},
    {"iproute2", false},
    {"build-essential", false},
};

/*
 * The units libvirt-daemon-system's postinst enables (deb-systemd-helper),
 * which a tree of package files lacks: libvirtd and its sockets, virtlogd's
 * and virtlockd's.
 */
#define WANTS(target, unit)                                                    \
	{"/lib/systemd/system/" unit,                                          \
	 "/etc/systemd/system/" target ".wants/" unit}
static const struct gfs_link lab_host_links[] = {
    WANTS("multi-user.target", "libvirtd.service"),
    WANTS("sockets.target", "libvirtd.socket"),
    WANTS("sockets.target", "libvirtd-ro.socket"),
    WANTS("sockets.target", "libvirtd-admin.socket"),
    WANTS("sockets.target", "virtlogd.socket"),
    WANTS("sockets.target", "virtlogd-admin.socket"),
    WANTS("sockets.target", "virtlockd.socket"),
    WANTS("sockets.target", "virtlockd-admin.socket"),
};

/* kvm_amd at boot (udev would load it too, from the CPU's svm flag): the
 * lab CPU is AMD's (orchestrator/config/lab.c). */
static const char lab_modules[] = "# written by vmtax image build\n"
				  VIRT_AMD_MODULE "\n";

/*
 * sshd's config (openssh-server's postinst writes one from a template: a
 * tree of package files has none): root by key only.  No host key is in the
 * image: 'vmtax lab up' makes them (ssh-keygen -A) before it starts sshd.
 */
static const char lab_sshd_config[] =
    "# written by vmtax image build: root logs in by key only\n"
    "PermitRootLogin prohibit-password\n"
    "PasswordAuthentication no\n"
    "KbdInteractiveAuthentication no\n"
    "PermitEmptyPasswords no\n"
    "UsePAM no\n"
    "AuthorizedKeysFile .ssh/authorized_keys\n"
    "X11Forwarding no\n"
    "Subsystem sftp /usr/lib/openssh/sftp-server\n";

static const struct gfs_text lab_texts[] = {
    {"/etc/modules-load.d/vmtax-lab.conf", lab_modules, 0644},
    {"/etc/ssh/sshd_config", lab_sshd_config, 0644},
};

const struct disk_kind disk_kinds[] = {
    [IMAGE_DEBIAN] = {.name = GUEST_IMAGE_DEBIAN},
    [IMAGE_LAB] =
	{
	    .name = GUEST_IMAGE_LAB,
	    .apt = lab_packages,
	    .napt = ARRAY_SIZE(lab_packages),
	    .host = lab_host_roots,
	    .nhost = ARRAY_SIZE(lab_host_roots),
	    .host_links = lab_host_links,
	    .nhost_links = ARRAY_SIZE(lab_host_links),
	    .texts = lab_texts,
	    .ntexts = ARRAY_SIZE(lab_texts),
	    .vmtax = true,
	    .shared = true,
	},
};

static const char guest_fstab[] =
    "# written by vmtax image build\n"
    "/dev/vda / ext4 rw,relatime,errors=remount-ro 0 1\n"
    "tmpfs /tmp tmpfs rw,nosuid,nodev,mode=1777,size=80% 0 0\n";

static const char guest_hostname[] = "vmtax-guest\n";
static const char guest_hosts[] = "127.0.0.1 localhost\n"
				  "127.0.1.1 vmtax-guest\n";

const struct gfs_text disk_common_texts[DISK_COMMON_TEXTS] = {
    {"/etc/systemd/system/vmtax-agent.service", agent_unit, 0644},
    {"/etc/fstab", guest_fstab, 0644},
    {"/etc/hostname", guest_hostname, 0644},
    {"/etc/hosts", guest_hosts, 0644},
};

const struct gfs_link disk_common_links[DISK_COMMON_LINKS] = {
    {"/etc/systemd/system/vmtax-agent.service",
     "/etc/systemd/system/sysinit.target.wants/"
     "vmtax-agent.service"},
    /* No prompts on the console at first boot. */
    {"/dev/null", "/etc/systemd/system/systemd-firstboot.service"},
    /* vmtax on PATH, once 'vmtax lab run' has put it there:
     * kinds with vmtax only (the last link) */
    {GUEST_LAB_VMTAX, "/usr/local/bin/vmtax"},
};
