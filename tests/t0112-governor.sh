#!/bin/sh
# host: exclusive
# [run] governor (docs/host-control.md): with performance, every cpufreq
# policy is performance while the cells run and back as it was after, the
# cell's observed.governor says so; keep (the default) touches nothing; a
# host without cpufreq is recorded as such, not failed; a governor a policy
# does not offer, a bad value and a [host] cpufreq knob are each refused
# with their own reason, exit 2, nothing changed; 'vmtax host restore' puts
# back a journal a dead run left.  All against fake cpufreq trees in the
# scratch directory (VMTAX_HOST_ROOT, lib/env.h): this host's /sys is
# never written.  A tiny bare-metal workload that copies the policies'
# governors while it runs.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root: the run takes the host lock and journal in /var/lib/vmtax"

JOURNAL=/var/lib/vmtax/host-journal
thp_before=$(thp_get enabled)

# tree DIR: a fake root with THP (at madvise: the cells ask for madvise, so
# it is not written) and policies 0-2 (schedutil, powersave, schedutil)
# offering AVAIL1 for policy1 (default: all of them)
tree() {
	cf=$TRASH/$1/sys/devices/system/cpu/cpufreq &&
	mkdir -p "$TRASH/$1/sys/kernel/mm/transparent_hugepage" &&
	echo "always [madvise] never" >"$TRASH/$1/sys/kernel/mm/transparent_hugepage/enabled" &&
	for p in 0 1 2; do
		mkdir -p "$cf/policy$p" &&
		echo "performance powersave schedutil" >"$cf/policy$p/scaling_available_governors" ||
		return 1
	done &&
	echo schedutil >"$cf/policy0/scaling_governor" &&
	echo powersave >"$cf/policy1/scaling_governor" &&
	echo schedutil >"$cf/policy2/scaling_governor" &&
	echo 1 >"$cf/boost" &&
	if [ -n "${2:-}" ]; then
		echo "$2" >"$cf/policy1/scaling_available_governors"
	fi
}

# govs DIR: the three policies' governors on one line
govs() {
	awk 1 "$TRASH/$1"/sys/devices/system/cpu/cpufreq/policy[012]/scaling_governor | tr '\n' ' '
}

mkdir -p "$TRASH/wl" &&
	printf "%s\n" "[workload]" "run = true" "[param.GOV_DIR]" "default = x" "[param.GOV_OUT]" "default = x" \
		>"$TRASH/wl/nothing.ini" &&
	cat >"$TRASH/wl/govs.ini" <<EOF2 ||
[workload]
run = awk 1 \$GOV_DIR/policy0/scaling_governor \$GOV_DIR/policy1/scaling_governor \$GOV_DIR/policy2/scaling_governor >\$GOV_OUT
[param.GOV_DIR]
default = /nonexistent
[param.GOV_OUT]
default = /dev/null
EOF2
	bail_out "cannot write the workload"

# config NAME ROOT [LINES]: a one-cell bare-metal config of workload $WL
# (govs: ROOT's policies copied into ROOT/during), with LINES (';' between
# lines) after [run]'s name and repeat
config() {
	{
		printf '%s\n' "[run]" "name = $1" "repeat = 1"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | tr ';' '\n'
		printf '%s\n' "[matrix]" "where = bare-metal" "host_thp = madvise" \
			"[workload]" "dir = $TRASH/wl" "name = ${WL:-govs}" \
			"GOV_DIR = $TRASH/$2/sys/devices/system/cpu/cpufreq" \
			"GOV_OUT = $TRASH/$2/during"
	} >"$TRASH/$1.ini"
}

test_expect_success 'performance: every policy is performance during the run, back after' '
	tree perf &&
	config perf perf "governor = performance" &&
	VMTAX_HOST_ROOT=$TRASH/perf "$VMTAX" run perf.ini --out perf.out >/dev/null 2>err &&
	cat err &&
	test "$(awk 1 perf/during | tr "\n" " ")" = "performance performance performance " &&
	test "$(govs perf)" = "schedutil powersave schedutil " &&
	grep -q "restored .cpufreq.policy1.governor. to .powersave. (was .performance.)" err &&
	test ! -e $JOURNAL
'

test_expect_success 'results.json records the governor set and the key' '
	jq -e ".cells[0].status == \"ok\"" perf.out/results.json &&
	jq -e ".cells[0].observed.governor == \"performance\"" perf.out/results.json &&
	jq -e ".cells[0].observed | has(\"governor_why\") | not" perf.out/results.json &&
	jq -e ".run.config.run.governor == \"performance\"" perf.out/results.json &&
	python3 "$TOP/tests/check-results.py" perf.out/results.json
'

test_expect_success 'keep (the default) touches nothing and records nothing' '
	tree keep &&
	config keep keep &&
	VMTAX_HOST_ROOT=$TRASH/keep "$VMTAX" run keep.ini --out keep.out >/dev/null 2>err &&
	test "$(awk 1 keep/during | tr "\n" " ")" = "schedutil powersave schedutil " &&
	! grep -q cpufreq err &&
	jq -e ".cells[0].observed | has(\"governor\") | not" keep.out/results.json &&
	jq -e ".run.config.run.governor == \"keep\"" keep.out/results.json
'

test_expect_success 'no cpufreq: recorded with the reason, noted, the run goes on' '
	tree none &&
	rm -r none/sys/devices/system/cpu/cpufreq &&
	mkdir -p none/sys/devices/system/cpu/cpufreq &&
	WL=nothing config none none "governor = performance" &&
	VMTAX_HOST_ROOT=$TRASH/none "$VMTAX" run none.ini --out none.out >/dev/null 2>err &&
	cat err &&
	grep -q "^vmtax: governor = performance: no cpufreq: ./sys/devices/system/cpu/cpufreq. has no policy" err &&
	jq -e ".cells[0].status == \"ok\"" none.out/results.json &&
	jq -e ".cells[0].observed.governor == null" none.out/results.json &&
	jq -e ".cells[0].observed.governor_why | startswith(\"no cpufreq\")" none.out/results.json &&
	test ! -e $JOURNAL
'

# Refused, exit 2, nothing changed: NAME|TREE POLICY1-OFFERS|[run] LINE|--set|MESSAGE (grep -F, whole line)
while IFS='|' read -r name offers line set msg; do
	test_expect_success "refused: $name (exit 2, --dry-run and run alike)" "
		tree bad.$name '$offers' &&
		config bad.$name bad.$name '$line' &&
		export VMTAX_HOST_ROOT=\$TRASH/bad.$name &&
		for dry in --dry-run ''; do
			test_expect_code 2 \"\$VMTAX\" run bad.$name.ini \$dry $set >out 2>err &&
			cat err &&
			grep -qxF -e \"$msg\" err || exit 1
		done &&
		test \"\$(govs bad.$name)\" = 'schedutil powersave schedutil ' &&
		test ! -e \$JOURNAL
	"
done <<EOF_BAD
not-offered|powersave schedutil|governor = performance||  - cpufreq governor: [run] governor = performance: cpufreq policy1 does not offer the governor 'performance' (its scaling_available_governors: powersave schedutil): [run] governor = keep, or run where every cpufreq policy offers it
bad-value||governor = turbo||bad.bad-value.ini:4: bad value for 'governor': 'turbo' is not one of: keep, performance
bad-set||governor = keep|--set run.governor=ondemand|--set 'run.governor=ondemand': bad value for 'run.governor': 'ondemand' is not one of: keep, performance
host-knob||[host];cpufreq.policy0.governor = performance||bad.host-knob.ini:5: host knob 'cpufreq.policy0.governor' is set by [run] governor (every cpufreq policy at once), not in [host]
EOF_BAD

test_expect_success 'vmtax host restore puts back the policies a dead run left' '
	tree dead &&
	cf=dead/sys/devices/system/cpu/cpufreq &&
	echo performance >$cf/policy0/scaling_governor &&
	echo performance >$cf/policy2/scaling_governor &&
	(umask 077 && printf "cpufreq.policy0.governor\tschedutil\ncpufreq.policy2.governor\tschedutil\n" >$JOURNAL) &&
	VMTAX_HOST_ROOT=$TRASH/dead "$VMTAX" host restore 2>err &&
	cat err &&
	grep -q "restored 2 host settings" err &&
	test "$(govs dead)" = "schedutil powersave schedutil " &&
	test ! -e $JOURNAL
'

test_expect_success 'the host is as before: its THP, no journal left' '
	test "$(thp_get enabled)" = "$thp_before" &&
	test ! -e $JOURNAL
'

# a journal of fake policies left by a failure above is put back on its
# fake tree, never on this host's
if grep -q "^cpufreq\.policy" $JOURNAL 2>/dev/null; then
	VMTAX_HOST_ROOT=$TRASH/dead "$VMTAX" host restore >/dev/null 2>&1
fi
test_done
