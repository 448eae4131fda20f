#!/bin/sh
# Writes the event scripts (for tests/gen/jank-gen) of two hosts' traces into
# DIR: alpha-kernel.script, alpha-ust.script, beta-kernel.script and
# beta-ust.script, each with its host's hostname in its environment.
#
# Usage: two-hosts.sh DIR [SKEW_NS [gamma]]
#
# The story: a client on alpha (pid 100, tid 100, "client") makes 20
# requests, one every 100 ms, to a server on beta (pid 200, tid 200,
# "server"): app:req_send (the action's begin and the request flow's from),
# then it sleeps until the reply, app:req_done (the action's end and the
# reply flow's to). The server sleeps until a request arrives 200 us later,
# app:req_take (the request flow's to), works 2 ms (60 ms for requests 5 and
# 15), app:reply_send (the reply flow's from), and sleeps again; the reply
# takes 200 us back. On alpha, another process has a thread of the server's
# tid, 200 ("decoy"), busy on CPU 1 all along: a path that confused the
# hosts' threads would show it.
#
# SKEW_NS (default 0): beta's metadata clock offset, as if its clock were
# off by that much (@clock-offset): its events' times are the true ones
# plus SKEW_NS.
#
# With `gamma`, a third host (gamma-kernel.script, gamma-ust.script) holds
# the server's database (pid 300, tid 300, "db"): on the slow requests the
# server works 1 ms, asks the database (app:db_send, app:db_take on gamma,
# 200 us later), which works 55 ms and answers (app:db_reply, then
# app:db_done on beta 200 us later), and the server replies 100 us after:
# the slow part is on gamma, two hosts away. Gamma's clock is 5 ms behind.
set -eu
dir=${1:?usage: two-hosts.sh DIR [SKEW_NS]}
skew=${2:-0}
third=${3:-}
hosts="alpha beta"
[ "$third" = gamma ] && hosts="alpha beta gamma"
MS=1000000
US=1000

for h in $hosts; do
	off=0
	[ "$h" = beta ] && off=$skew
	[ "$h" = gamma ] && off=-5000000
	printf '@trace kernel\n@env hostname="%s"\n@cpus 2\n@clock-offset %s\n' "$h" "$off" \
		>"$dir/$h-kernel.script"
	printf '@trace ust\n@env hostname="%s"\n@cpus 2\n@clock-offset %s\n@context vpid vtid procname:string\n' \
		"$h" "$off" >"$dir/$h-ust.script"
done

kev() { echo "$2 $3 $4" >>"$dir/$1-kernel.script"; }
uev() { echo "$2 0 $3 id=$4 vpid=$5 vtid=$5 procname=\"$6\"" >>"$dir/$1-ust.script"; }
switch() { # host ts cpu prev_comm prev_tid prev_state next_comm next_tid
	kev "$1" "$2" "$3" "sched_switch prev_comm=\"$4\" prev_tid=$5 prev_prio=20 prev_state=$6 next_comm=\"$7\" next_tid=$8 next_prio=20"
}
wake() { # host ts cpu comm tid
	kev "$1" "$2" "$3" "sched_waking comm=\"$4\" tid=$5 prio=20 target_cpu=$3"
	kev "$1" "$(($2 + US))" "$3" "sched_wakeup comm=\"$4\" tid=$5 prio=20 target_cpu=$3"
}

t0=1000000000
# Everyone runs at first; the decoy keeps CPU 1 of alpha to the end.
switch alpha $t0 0 swapper/0 0 0 client 100
switch alpha $t0 1 swapper/1 0 0 decoy 200
switch beta $t0 0 swapper/0 0 0 server 200
switch beta $((t0 + 100 * US)) 0 server 200 1 swapper/0 0
if [ -n "$third" ]; then
	switch gamma $t0 0 swapper/0 0 0 db 300
	switch gamma $((t0 + 100 * US)) 0 db 300 1 swapper/0 0
fi

i=0
while [ $i -lt 20 ]; do
	t=$((t0 + MS + i * 100 * MS))
	work=$((2 * MS))
	[ $i -eq 5 ] || [ $i -eq 15 ] && work=$((60 * MS))
	uev alpha $t app:req_send $i 100 client
	switch alpha $((t + 10 * US)) 0 client 100 1 swapper/0 0
	# beta (its clock's offset makes its times the true ones plus the skew)
	tb=$((t + 200 * US))
	wake beta $tb 0 server 200
	switch beta $((tb + 5 * US)) 0 swapper/0 0 0 server 200
	uev beta $((tb + 10 * US)) app:req_take $i 200 server
	if [ -n "$third" ] && [ $work -gt $((2 * MS)) ]; then
		# 1 ms of work, then the database on gamma: 55 ms there
		uev beta $((tb + 10 * US + MS)) app:db_send $i 200 server
		switch beta $((tb + 15 * US + MS)) 0 server 200 1 swapper/0 0
		tg=$((tb + 10 * US + MS + 200 * US))
		wake gamma $tg 0 db 300
		switch gamma $((tg + 5 * US)) 0 swapper/0 0 0 db 300
		uev gamma $((tg + 10 * US)) app:db_take $i 300 db
		uev gamma $((tg + 10 * US + 55 * MS)) app:db_reply $i 300 db
		switch gamma $((tg + 15 * US + 55 * MS)) 0 db 300 1 swapper/0 0
		ta=$((tg + 10 * US + 55 * MS + 200 * US))
		wake beta $ta 0 server 200
		switch beta $((ta + 5 * US)) 0 swapper/0 0 0 server 200
		uev beta $((ta + 10 * US)) app:db_done $i 200 server
		# the reply goes 100 us later: `work` is what it took since the take
		work=$((ta + 110 * US - tb - 10 * US))
	fi
	uev beta $((tb + 10 * US + work)) app:reply_send $i 200 server
	switch beta $((tb + 15 * US + work)) 0 server 200 1 swapper/0 0
	# the reply, back on alpha
	tr=$((tb + 10 * US + work + 200 * US))
	wake alpha $tr 0 client 100
	switch alpha $((tr + 5 * US)) 0 swapper/0 0 0 client 100
	uev alpha $((tr + 10 * US)) app:req_done $i 100 client
	i=$((i + 1))
done
end=$((t0 + 2100 * MS))
switch alpha $end 1 decoy 200 0 swapper/1 0
switch alpha $end 0 client 100 1 swapper/0 0
switch beta $end 0 swapper/0 0 0 server 200
[ -z "$third" ] || switch gamma $end 0 swapper/0 0 0 db 300
