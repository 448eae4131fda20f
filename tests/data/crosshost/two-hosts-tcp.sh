#!/bin/sh
# Writes the event scripts of two hosts' traces whose only link is TCP, as
# the kernel tracer sees it: DIR/alpha-kernel.netgen and DIR/beta-kernel.netgen
# (for tests/gen/jank-netgen: lttng-modules' own layout of net_dev_queue and
# net_if_receive_skb, alpha's packed as on x86, beta's naturally aligned) and
# DIR/alpha-ust.script (for jank-gen: the client's app:req_send and
# app:req_done, the action; no flow event anywhere).
#
# Usage: two-hosts-tcp.sh DIR [MODE [SKEW_NS [FLOOD]]]
#
# The story: a client on alpha (tid 100) makes 10 requests, one every
# 100 ms, over one TCP connection to a server on beta (tid 200): its thread
# queues a 100-byte segment (net_dev_queue) and sleeps; 200 us later beta's
# NET_RX softirq receives it (net_if_receive_skb) and wakes the server,
# which works 2 ms (60 ms for requests 3 and 7) and queues a 50-byte reply;
# 200 us later alpha's softirq receives it and wakes the client. The
# sequence numbers wrap past 2^32 from request 3 on. On alpha, a busy decoy
# has the server's tid, 200, on CPU 1.
#
# MODE plain (the default); nat: each host sees other addresses and ports
# (alpha talks to 203.0.113.5:80 from 192.168.1.10:40000, beta sees
# 198.51.100.7:55555 talk to 10.0.0.2:8080): only (seq, ack_seq, flags)
# match; gso: the server's replies are 3000 bytes queued at once, received
# on alpha as three segments in one softirq, the last one waking the
# client (its sequence number inside the send's range, not equal to it);
# ipv6: the connection is over IPv6. SKEW_NS: beta's metadata clock offset
# (its times are the true ones plus SKEW_NS). FLOOD: that many more
# segments the decoy sends to a host not traced, never received.
set -eu
dir=${1:?usage: two-hosts-tcp.sh DIR [MODE [SKEW_NS [FLOOD]]]}
mode=${2:-plain}
skew=${3:-0}
flood=${4:-0}
MS=1000000
US=1000
printf '@host alpha\n@cpus 2\n@align packed\n' >"$dir/alpha-kernel.netgen"
printf '@host beta\n@cpus 1\n@align natural\n@clock-offset %s\n' "$skew" >"$dir/beta-kernel.netgen"
printf '@trace ust\n@env hostname="alpha"\n@cpus 2\n@context vpid vtid procname:string\n' \
	>"$dir/alpha-ust.script"
k() {
	h=$1
	shift
	echo "$*" >>"$dir/$h-kernel.netgen"
}
u() { echo "$1 0 $2 id=$3 vpid=100 vtid=100 procname=\"client\"" >>"$dir/alpha-ust.script"; }

# The connection as alpha sees it (client ca:cp, server sa:sp) and as beta does.
ca=10.0.0.1 cp=40000 sa=10.0.0.2 sp=8080
if [ "$mode" = ipv6 ]; then
	ca=fd00:0:0:0:0:0:0:1 sa=fd00:0:0:0:0:0:0:2
fi
cb=$ca cbp=$cp sb=$sa sbp=$sp
if [ "$mode" = nat ]; then
	ca=192.168.1.10 sa=203.0.113.5 sp=80
	cb=198.51.100.7 cbp=55555 sb=10.0.0.2 sbp=8080
fi
reply=50
[ "$mode" = gso ] && reply=3000

t0=1000000000
k alpha $t0 0 switch swapper/0 0 0 client 100
k alpha $t0 1 switch swapper/1 0 0 decoy 200
k beta $t0 0 switch swapper/0 0 0 server 200
k beta $((t0 + 100 * US)) 0 switch server 200 1 swapper/0 0
# The flood: the decoy's segments to a host not traced, before the requests.
i=0
while [ "$i" -lt "$flood" ]; do
	k alpha $((t0 + 10 * US + i * 100)) 1 send 10.0.0.1 50000 10.9.9.9 9 $((i * 1000)) 1 0x18 1000
	i=$((i + 1))
done
i=0
while [ $i -lt 10 ]; do
	t=$((t0 + MS + i * 100 * MS))
	work=$((2 * MS))
	[ $i -eq 3 ] || [ $i -eq 7 ] && work=$((60 * MS))
	s=$(((4294967000 + i * 100) % 4294967296))
	s2=$(((s + 100) % 4294967296))
	a=$((5000 + i * reply))
	u $t app:req_send $i
	k alpha $((t + 5 * US)) 0 send $ca $cp $sa $sp $s $a 0x18 100
	k alpha $((t + 10 * US)) 0 switch client 100 1 swapper/0 0
	tb=$((t + 200 * US))
	k beta $tb 0 softirq_entry 3
	k beta $((tb + 1 * US)) 0 recv $cb $cbp $sb $sbp $s $a 0x18 100
	k beta $((tb + 2 * US)) 0 waking server 200
	k beta $((tb + 3 * US)) 0 softirq_exit 3
	k beta $((tb + 5 * US)) 0 switch swapper/0 0 0 server 200
	ts=$((tb + 10 * US + work))
	k beta "$ts" 0 send $sb $sbp $cb $cbp $a $s2 0x18 $reply
	k beta $((ts + 5 * US)) 0 switch server 200 1 swapper/0 0
	tr=$((ts + 200 * US))
	k alpha $tr 0 softirq_entry 3
	if [ "$mode" = gso ]; then
		k alpha $((tr + 1 * US)) 0 recv $sa $sp $ca $cp $a $s2 0x10 1448
		k alpha $((tr + 1 * US)) 0 recv $sa $sp $ca $cp $((a + 1448)) $s2 0x10 1448
		k alpha $((tr + 1 * US)) 0 recv $sa $sp $ca $cp $((a + 2896)) $s2 0x18 104
	else
		k alpha $((tr + 1 * US)) 0 recv $sa $sp $ca $cp $a $s2 0x18 $reply
	fi
	k alpha $((tr + 2 * US)) 0 waking client 100
	k alpha $((tr + 3 * US)) 0 softirq_exit 3
	k alpha $((tr + 5 * US)) 0 switch swapper/0 0 0 client 100
	u $((tr + 10 * US)) app:req_done $i
	i=$((i + 1))
done
end=$((t0 + 1100 * MS))
k alpha $end 1 switch decoy 200 0 swapper/1 0
k alpha $end 0 switch client 100 1 swapper/0 0
k beta $end 0 switch swapper/0 0 0 server 200
