#!/bin/sh
# Writes the event scripts of the demo trace (for tests/gen/jank-gen) into DIR:
# DIR/kernel.script and DIR/ust.script.
#
# The story: a renderer app (pid 4300) draws frames on its thread "worker"
# (tid 4312); each frame is a jank:action_begin/end pair. Most frames take
# 4 ms. Frame 15 waits for the app's "db" thread (tid 4377), which waits for
# the disk. Frame 18 is preempted by a "backup" process (tid 5100) hogging
# the CPU. The demo config flags frames over 16 ms. The first 12 frames
# (0-11) are normal: jank learns from them what a normal frame looks like
# (it needs 10), and says what was different in frames 15 and 18.
set -eu
dir=${1:?usage: demo-trace.sh DIR}
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
uev() { echo "$1 0 $2 name=\"frame\" id=$3 vpid=4300 vtid=4312 procname=\"worker\"" >> "$u"; }
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
for tid in 4312 4377 5100; do
	case $tid in 4312) n=worker p=4300 ;; 4377) n=db p=4300 ;; 5100) n=backup p=5100 ;; esac
	kev "$w" 0 "lttng_statedump_process_state tid=$tid pid=$p name=\"$n\" status=5"
done
# The twelve frames before the story: normal ones, ending before t.
for id in 0 1 2 3 4 5 6 7 8 9 10 11; do
	w=$(frame "$((w + 1 * MS))" "$id" "$((4 * MS + id % 4 * 100 * US))")
done
t=$((t + 1 * MS))

for i in 0 1 2 3 4 5 6 7; do
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
	*)	end=$((t + 4 * MS + i * 100 * US))
		;;
	esac
	uev "$end" jank:action_end "$id"
	switch "$((end + 50 * US))" 0 worker 4312 1 swapper/0 0
	t=$((end + 5 * MS))
done
