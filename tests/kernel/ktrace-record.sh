#!/bin/sh
# ktrace-record.sh: record a command with ftrace, as lttng-modules would for
# jankd, into a directory that ktrace-conv turns into CTF scripts.
#
# Usage: ktrace-record.sh [-b KB] [-u] [-k] [-e SYS/EVENT]... OUTDIR COMMAND [ARG...]
#
# A private instance, /sys/kernel/tracing/instances/jank-ktrace.PID, with
# trace_clock mono (CLOCK_MONOTONIC ns), a per-CPU buffer of KB KiB
# (default 4096) that drops new events rather than overwrite old ones, and
# the events jankd enables (plus block and net ones when the kernel has
# them, and each -e SYS/EVENT, e.g. -e syscalls/sys_enter_read).
#   -u  the instance's userstacktrace option: after each event, a
#       ftrace:user_stack record of the user stack of the current task
#       (its user IP at kernel entry, then the return addresses found by
#       following frame pointers; at most 8), as lttng-modules'
#       callstack_user context of a channel gives every event of it. While
#       COMMAND runs, its /proc/PID/maps is copied to maps/PID every 0.1 s
#       (the last copy stays), for the addresses' load bases.
#   -k  the stacktrace option: a ftrace:kernel_stack record after each
#       event (callstack_kernel).
# COMMAND runs with KTRACE_MARKER set to the instance's trace_marker:
# what it writes there is recorded in the same buffer. Then OUTDIR gets:
#   cpuN.raw          the raw ring-buffer pages of CPU N (trace_pipe_raw)
#   formats/SYS:NAME  the format of each event, header_page
#   procs             /proc/*/task/*/stat just before tracing starts
#   saved_tgids, saved_cmdlines   the kernel's pid -> tgid and comm caches
#   statsN, info      the per-CPU counts (lost events), the recording
#   maps/PID          with -u: COMMAND's memory map (PID: COMMAND's)
# The instance is removed on every exit, error or signal. Exit status: the
# command's; 77 when there is no tracefs or no root, or this kernel lacks
# an -e event or the -u or -k option; 1 on a recording error (events lost
# included).
set -u

usage() {
	echo "usage: ktrace-record.sh [-b KB] [-u] [-k] [-e SYS/EVENT]... OUTDIR COMMAND [ARG...]" >&2
	exit 2
}
kb=4096
ustack=0
kstack=0
extra=
while getopts b:uke: opt; do
	case $opt in
	b) kb=$OPTARG ;;
	u) ustack=1 ;;
	k) kstack=1 ;;
	e) extra="$extra $OPTARG" ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -lt 2 ] && usage
out=$1
shift

say() { echo "ktrace-record: $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
	say "needs root (tracefs)"
	exit 77
fi
tfs=/sys/kernel/tracing
if [ ! -d "$tfs/instances" ]; then
	mount -t tracefs nodev "$tfs" 2>/dev/null
	if [ ! -d "$tfs/instances" ]; then
		say "no tracefs at $tfs"
		exit 77
	fi
fi

# Instances of recorders that died without cleaning up (SIGKILL).
for d in "$tfs"/instances/jank-ktrace.*; do
	[ -d "$d" ] || continue
	p=${d##*.}
	kill -0 "$p" 2>/dev/null || rmdir "$d" 2>/dev/null
done

inst=$tfs/instances/jank-ktrace.$$
child=
sampler=
cleanup() {
	trap - EXIT HUP INT TERM
	if [ -n "$child" ]; then
		kill "$child" 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	if [ -n "$sampler" ]; then
		kill "$sampler" 2>/dev/null
		wait "$sampler" 2>/dev/null
	fi
	if [ -d "$inst" ]; then
		echo 0 >"$inst/tracing_on" 2>/dev/null
		# rmdir fails (EBUSY) while a file of the instance is open.
		n=0
		while ! rmdir "$inst" 2>/dev/null && [ $n -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		[ -d "$inst" ] && say "could not remove $inst"
	fi
}
trap cleanup EXIT
trap 'exit 130' HUP INT TERM

mkdir -p "$out/formats" || exit 1
if ! mkdir "$inst"; then
	say "cannot create $inst"
	exit 1
fi

set_opt() { echo "$2" >"$inst/$1" 2>/dev/null || { say "cannot set $1 to $2"; exit 1; }; }
set_opt tracing_on 0
set_opt trace_clock mono
set_opt buffer_size_kb "$kb"
set_opt options/overwrite 0
# saved_tgids gives the pid context of threads that are gone by the end.
echo 1 >"$inst/options/record-tgid" 2>/dev/null || say "no record-tgid: pids from /proc only"
# The stacks: records of their own (ftrace:user_stack, ftrace:kernel_stack)
# right after the event's, on its CPU.
stack_opt() { # OPTION RECORD
	if [ ! -f "$inst/options/$1" ] || ! echo 1 >"$inst/options/$1" 2>/dev/null; then
		say "this kernel has no $1 option"
		exit 77
	fi
	cp "$tfs/events/ftrace/$2/format" "$out/formats/ftrace:$2" || exit 1
}
[ $ustack -eq 1 ] && stack_opt userstacktrace user_stack
[ $kstack -eq 1 ] && stack_opt stacktrace kernel_stack

sched="sched_switch sched_waking sched_wakeup sched_wakeup_new sched_process_fork
	sched_process_exec sched_process_exit sched_process_free"
irq="irq_handler_entry irq_handler_exit softirq_entry softirq_exit softirq_raise"
events=
for ev in $sched; do events="$events sched/$ev"; done
for ev in $irq; do events="$events irq/$ev"; done
events="$events timer/hrtimer_expire_entry timer/hrtimer_expire_exit"
optional="block/block_rq_issue block/block_rq_complete net/net_dev_queue net/netif_receive_skb"
for ev in $events $optional $extra; do
	d=$inst/events/$ev
	if [ ! -d "$d" ] || [ ! -f "$d/format" ]; then
		case " $optional " in
		*" $ev "*) continue ;;
		esac
		say "this kernel has no event $ev"
		case " $extra " in
		*" $ev "*) exit 77 ;;
		esac
		exit 1
	fi
	echo 1 >"$d/enable" || { say "cannot enable $ev"; exit 1; }
	cp "$d/format" "$out/formats/${ev%%/*}:${ev#*/}" || exit 1
done
cp "$tfs/events/ftrace/print/format" "$out/formats/ftrace:print" || exit 1
cp "$tfs/events/header_page" "$out/header_page" || exit 1

ncpus=0
while [ -d "$inst/per_cpu/cpu$ncpus" ]; do ncpus=$((ncpus + 1)); done
subbuf=4096
[ -r "$inst/buffer_subbuf_size_kb" ] && subbuf=$(($(cat "$inst/buffer_subbuf_size_kb") * 1024))
{
	echo "ncpus=$ncpus"
	echo "subbuf_size=$subbuf"
	echo "hostname=$(uname -n)"
	echo "kernel_release=$(uname -r)"
	echo "pidns=$(stat -L -c %i /proc/self/ns/pid)"
	echo "dumper_tid=$$"
	echo "dumper_comm=$(cat /proc/$$/comm)"
	echo "userstacktrace=$ustack"
	echo "stacktrace=$kstack"
} >"$out/info"

# printf is a builtin: no argument list limit, however many threads.
printf '%s\n' /proc/[0-9]*/task/[0-9]*/stat | xargs grep -Hs . >"$out/procs"

echo 1 >"$inst/tracing_on"
if [ $ustack -eq 1 ]; then
	# Its pid as /proc names it ($$, the name of its maps/ file), in a marker
	# whose record carries the pid the kernel's events name it by: the two
	# differ in a PID namespace (a container, CI's fresh root).
	KTRACE_MARKER=$inst/trace_marker sh -c \
		'echo "ktrace:pid $$" >"$KTRACE_MARKER" 2>/dev/null; exec "$@"' sh "$@" &
else
	KTRACE_MARKER=$inst/trace_marker "$@" &
fi
child=$!
if [ $ustack -eq 1 ]; then
	# The shell's map until COMMAND is exec'd, then COMMAND's; a map read
	# empty (the process is gone) does not replace the last one.
	mkdir -p "$out/maps" || exit 1
	(
		trap - EXIT
		while kill -0 "$child" 2>/dev/null; do
			cat "/proc/$child/maps" >"$out/maps/.$child" 2>/dev/null &&
				[ -s "$out/maps/.$child" ] && mv "$out/maps/.$child" "$out/maps/$child"
			sleep 0.1
		done
		rm -f "$out/maps/.$child"
	) &
	sampler=$!
fi
wait "$child"
status=$?
child=
if [ -n "$sampler" ]; then
	wait "$sampler"
	sampler=
fi
echo 0 >"$inst/tracing_on"

cpu=0
while [ $cpu -lt "$ncpus" ]; do
	dd if="$inst/per_cpu/cpu$cpu/trace_pipe_raw" of="$out/cpu$cpu.raw" bs="$subbuf" \
		iflag=nonblock 2>/dev/null || { say "cannot read the buffer of CPU $cpu"; exit 1; }
	cp "$inst/per_cpu/cpu$cpu/stats" "$out/stats$cpu"
	cpu=$((cpu + 1))
done
cat "$tfs/saved_tgids" >"$out/saved_tgids" 2>/dev/null
cat "$tfs/saved_cmdlines" >"$out/saved_cmdlines" 2>/dev/null

lost=$(awk -F: '/^(overrun|dropped events|commit overrun):/ { n += $2 } END { print n + 0 }' \
	"$out"/stats[0-9]*)
if [ "$lost" -ne 0 ]; then
	say "$lost events lost: use a larger buffer (-b)"
	exit 1
fi
exit $status
