#!/bin/sh
# Writes the event scripts of the demo trace (for tests/gen/jank-gen) into DIR:
# DIR/kernel.script and DIR/ust.script.
#
# Usage: demo-trace.sh DIR [BINARY]
#
# The story: a renderer app (pid 4300) draws frames on its thread "worker"
# (tid 4312); each frame is a jank:action_begin/end pair. Most frames take
# 4 ms. Frame 15 waits for the app's "db" thread (tid 4377), which waits for
# the disk. Frame 18 is preempted by a "backup" process (tid 5100) hogging
# the CPU. Frame 19 posts work to the app's one-thread pool ("pool", tid
# 4390); frame 20 posts its own task there and waits for the reply, but the
# pool is still busy with frame 19's work: frame 20 waits for the pool
# (jank:flow_from/flow_to, the demo config's [flow pool]). The demo config
# flags frames over 16 ms. The first 12 frames (0-11) are normal: jank
# learns from them what a normal frame looks like (it needs 10), and says
# what was different in frames 15, 18 and 20.
#
# The pool's thread and the worker in frame 20 also have function entries
# and exits (lttng_ust_cyg_profile:func_entry/func_exit, as a program built
# with -finstrument-functions makes under liblttng-ust-cyg-profile): the
# pool runs work_cpu, called from pool_main, and the worker waits in
# work_pool. Their addresses are those of BINARY's functions of these names
# (jank-demo's; nm finds them), and the app's statedump says where BINARY is
# mapped (lttng_ust_statedump:bin_info), so jankctl names them. Without
# BINARY (or without nm, or if a name is missing), the addresses are made up
# and there is no statedump: the functions print as hexadecimal addresses.
set -eu
dir=${1:?usage: demo-trace.sh DIR [BINARY]}
bin=${2:-}
k=$dir/kernel.script
u=$dir/ust.script

cat > "$k" <<'HDR'
@trace kernel
@env hostname="demo-host"
@cpus 2
HDR
cat > "$u" <<'HDR'
@trace ust
@env hostname="demo-host"
@cpus 2
@context vpid vtid procname:string
HDR

MS=1000000
US=1000
t=1000000000

kev() { echo "$1 $2 $3" >> "$k"; }
# A user-space event of the app: ts name tid comm [fields]
app() { echo "$1 0 $2 ${5:-} vpid=4300 vtid=$3 procname=\"$4\"" >> "$u"; }
uev() { app "$1" "$2" 4312 worker "name=\"frame\" id=$3"; }
switch() { # ts cpu prev_comm prev_tid prev_state next_comm next_tid
	kev "$1" "$2" "sched_switch prev_comm=\"$3\" prev_tid=$4 prev_prio=20 prev_state=$5 next_comm=\"$6\" next_tid=$7 next_prio=20"
}
waking() { # ts cpu comm tid target_cpu
	kev "$1" "$2" "sched_waking comm=\"$3\" tid=$4 prio=20 target_cpu=$5"
	kev "$1" "$2" "sched_wakeup comm=\"$3\" tid=$4 prio=20 target_cpu=$5"
}
timer_wake() { # ts cpu comm tid: an hrtimer expires and wakes tid
	kev "$1" "$2" "timer_hrtimer_expire_entry hrtimer=0xffff8800 now=$1 function=0xffffffff810a"
	waking "$(($1 + 2 * US))" "$2" "$3" "$4" "$2"
	kev "$(($1 + 3 * US))" "$2" "timer_hrtimer_expire_exit hrtimer=0xffff8800"
}
# Work handed over to the pool (on tid, comm) and picked up by it.
post() { app "$1" jank:flow_from 4312 worker "name=\"pool\" key=$2"; }
pick() { app "$1" jank:flow_to 4390 pool "name=\"pool\" key=$2"; }

# The app's functions: where BINARY's are once mapped at base, or made up.
base=0x55d0c4a00000
fn_pool_main=0x55d0c4a02e90
fn_work_cpu=0x55d0c4a02fd0
fn_work_pool=0x55d0c4a029f0
memsz=
if [ -n "$bin" ] && [ -x "$(dirname "$bin")/.libs/$(basename "$bin")" ]; then
	bin=$(dirname "$bin")/.libs/$(basename "$bin") # libtool's wrapper: the real one
fi
if [ -n "$bin" ] && [ -f "$bin" ] && command -v nm >/dev/null 2>&1 &&
	command -v readelf >/dev/null 2>&1; then
	bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
	# The first PT_LOAD's address and the end of the last one.
	loads=$(LC_ALL=C readelf -lW "$bin" 2>/dev/null | awk '$1 == "LOAD" {
		if (first == "") first = $3; last = $3 " " $6 } END { if (first != "") print first, last }')
	syms=$(nm "$bin" 2>/dev/null | awk '$2 ~ /^[tT]$/ &&
		($3 == "pool_main" || $3 == "work_cpu" || $3 == "work_pool") { print $3, $1 }')
	pie=$(LC_ALL=C readelf -hW "$bin" 2>/dev/null | awk '$1 == "Type:" { print $2 }')
	if [ -n "$loads" ] && [ "$(echo "$syms" | wc -l)" = 3 ]; then
		set -- $loads
		first=$1
		[ "$pie" = DYN ] || base=$first
		memsz=$(($2 + $3 - first))
		addr() { printf '0x%x' $((base + 0x$(echo "$syms" | awk -v f="$1" '$1 == f { print $2 }') - first)); }
		fn_pool_main=$(addr pool_main)
		fn_work_cpu=$(addr work_cpu)
		fn_work_pool=$(addr work_pool)
	fi
fi
in_pool_main=$(printf '0x%x' $((fn_pool_main + 0x9c))) # its call of work_cpu
in_worker_main=$(printf '0x%x' $((base + 0x3240)))    # the worker's call of work_pool
# Entries and exits: ts tid comm addr call_site (call_site: where the caller called it).
fentry() { app "$1" lttng_ust_cyg_profile:func_entry "$2" "$3" "addr=$4 call_site=$5"; }
fexit() { app "$1" lttng_ust_cyg_profile:func_exit "$2" "$3" "addr=$4 call_site=$5"; }

# A normal frame: the timer wakes the worker, which draws for `dur` ns.
frame() { # ts id dur; prints the next frame's ts
	timer_wake "$1" 0 worker 4312
	switch "$(($1 + 10 * US))" 0 swapper/0 0 0 worker 4312
	uev "$(($1 + 20 * US))" jank:action_begin "$2"
	uev "$(($1 + 10 * US + $3))" jank:action_end "$2"
	switch "$(($1 + 10 * US + $3 + 50 * US))" 0 worker 4312 1 swapper/0 0
	echo "$(($1 + 10 * US + $3 + 5 * MS))"
}

w=$((t - 126 * MS))
for tid in 4312 4377 4390 5100; do
	case $tid in
	4312) n=worker p=4300 ;; 4377) n=db p=4300 ;; 4390) n=pool p=4300 ;; 5100) n=backup p=5100 ;;
	esac
	kev "$w" 0 "lttng_statedump_process_state tid=$tid pid=$p name=\"$n\" status=5"
done
# The app's statedump, as lttng-ust makes it when the app registers: where
# its executable is mapped. The pool's thread is already in pool_main.
if [ -n "$memsz" ]; then
	app "$w" lttng_ust_statedump:start 4312 worker
	app "$w" lttng_ust_statedump:bin_info 4312 worker \
		"baddr=$base memsz=$memsz path=\"$bin\" is_pic=$([ "$pie" = DYN ] && echo 1 || echo 0) has_build_id=0 has_debug_link=0"
	app "$w" lttng_ust_statedump:end 4312 worker
fi
fentry "$w" 4390 pool "$fn_pool_main" 0x7f3a5e294044
# The twelve frames before the story: normal ones, ending before t.
for id in 0 1 2 3 4 5 6 7 8 9 10 11; do
	w=$(frame "$((w + 1 * MS))" "$id" "$((4 * MS + id % 4 * 100 * US))")
done
t=$((t + 1 * MS))

for i in 0 1 2 3 4 5 6 7 8 9; do
	id=$((i + 12))
	timer_wake "$t" 0 worker 4312
	t=$((t + 10 * US))
	switch "$t" 0 swapper/0 0 0 worker 4312
	uev "$((t + 10 * US))" jank:action_begin "$id"
	case $i in
	3)	# The worker hands a query to db and waits; db waits for the disk.
		waking "$((t + 1 * MS))" 0 db 4377 1
		switch "$((t + 1 * MS + 10 * US))" 1 swapper/1 0 0 db 4377
		switch "$((t + 1 * MS + 50 * US))" 0 worker 4312 1 swapper/0 0
		kev "$((t + 1500 * US))" 1 "block_rq_issue dev=8388608 sector=123456 nr_sector=8 rwbs=1 comm=\"db\""
		switch "$((t + 1600 * US))" 1 db 4377 1 swapper/1 0
		kev "$((t + 41600 * US))" 1 "irq_softirq_entry vec=4"
		kev "$((t + 41605 * US))" 1 "block_rq_complete dev=8388608 sector=123456 nr_sector=8 error=0 rwbs=1"
		waking "$((t + 41610 * US))" 1 db 4377 1
		kev "$((t + 41620 * US))" 1 "irq_softirq_exit vec=4"
		switch "$((t + 41700 * US))" 1 swapper/1 0 0 db 4377
		waking "$((t + 43700 * US))" 1 worker 4312 0
		switch "$((t + 43750 * US))" 1 db 4377 1 swapper/1 0
		switch "$((t + 43800 * US))" 0 swapper/0 0 0 worker 4312
		end=$((t + 45 * MS))
		;;
	6)	# A backup job takes the worker's CPU for 20 ms.
		waking "$((t + 900 * US))" 0 backup 5100 0
		switch "$((t + 1 * MS))" 0 worker 4312 0 backup 5100
		switch "$((t + 21 * MS))" 0 backup 5100 1 worker 4312
		end=$((t + 24 * MS))
		;;
	7)	# The worker posts work to the pool (task 1) and goes on: the
		# pool wakes up and runs it, 30 ms in work_cpu.
		post "$((t + 3 * MS))" 1
		waking "$((t + 3 * MS + 5 * US))" 0 pool 4390 1
		switch "$((t + 3 * MS + 20 * US))" 1 swapper/1 0 0 pool 4390
		pick "$((t + 3 * MS + 30 * US))" 1
		fentry "$((t + 3 * MS + 40 * US))" 4390 pool "$fn_work_cpu" "$in_pool_main"
		pool_busy=$((t + 33 * MS + 40 * US))
		end=$((t + 4 * MS + i * 100 * US))
		;;
	8)	# The worker posts the frame's task (task 2) and waits for the
		# reply, but the pool is still busy with task 1: it picks task 2
		# up when task 1 is done, runs it for 2 ms and wakes the worker.
		fentry "$((t + 15 * US))" 4312 worker "$fn_work_pool" "$in_worker_main"
		post "$((t + 1 * MS))" 2
		switch "$((t + 1 * MS + 50 * US))" 0 worker 4312 1 swapper/0 0
		fexit "$pool_busy" 4390 pool "$fn_work_cpu" "$in_pool_main"
		pick "$((pool_busy + 10 * US))" 2
		fentry "$((pool_busy + 20 * US))" 4390 pool "$fn_work_cpu" "$in_pool_main"
		fexit "$((pool_busy + 2 * MS))" 4390 pool "$fn_work_cpu" "$in_pool_main"
		waking "$((pool_busy + 2 * MS + 10 * US))" 1 worker 4312 0
		switch "$((pool_busy + 2 * MS + 40 * US))" 1 pool 4390 1 swapper/1 0
		switch "$((pool_busy + 2 * MS + 60 * US))" 0 swapper/0 0 0 worker 4312
		fexit "$((pool_busy + 2 * MS + 90 * US))" 4312 worker "$fn_work_pool" "$in_worker_main"
		end=$((pool_busy + 2 * MS + 100 * US))
		;;
	*)	end=$((t + 4 * MS + i * 100 * US))
		;;
	esac
	uev "$end" jank:action_end "$id"
	switch "$((end + 50 * US))" 0 worker 4312 1 swapper/0 0
	t=$((end + 5 * MS))
done
