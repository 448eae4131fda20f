/*
 * jank-netgen: write a kernel trace in lttng-modules' own CTF layout, by
 * hand, with the IP and TCP headers of net_dev_queue and
 * net_if_receive_skb as lttng-modules >= 2.9 writes them.
 *
 * jank-gen (babeltrace2's CTF writer) cannot write big-endian bit fields,
 * nested variants selected by an enumeration or the padding lttng-modules
 * puts before the headers; this writes the metadata text and the packets
 * itself. The network_header is the variant of
 * lttng-modules' include/instrumentation/events/net.h: network_header_type
 * (unknown 0, ipv4 1, ipv6 2), then the IP header's fields (big-endian, as
 * the raw header is copied), transport_header_type (unknown 0, tcp 1, udp
 * 2, icmp 3) and the TCP header's (source_port, dest_port, seq, ack_seq,
 * data_offset:4, reserved:3, flags:9, window_size, checksum, urg_ptr).
 * Tag enumerations' labels begin with '_' as lttng-modules writes them.
 * `@align packed` (the default) is x86's layout: every field byte-aligned,
 * no padding; `@align natural` is that of architectures without efficient
 * unaligned access: the IP header aligned on 16 bits, the TCP header on 32.
 *
 * Usage: jank-netgen SCRIPT OUTDIR. Script lines (blank and # lines skipped):
 *
 *   @host NAME            the environment's hostname (first)
 *   @cpus N               streams channel0_0 .. channel0_<N-1> (default 1)
 *   @clock-offset NS      the clock's offset (an event is at NS + TS)
 *   @align packed|natural
 *   TS CPU switch PREV_COMM PREV_TID PREV_STATE NEXT_COMM NEXT_TID
 *   TS CPU waking|wakeup COMM TID
 *   TS CPU softirq_entry|softirq_exit|softirq_raise VEC
 *   TS CPU send|recv SADDR SPORT DADDR DPORT SEQ ACK FLAGS PAYLOAD
 *   TS CPU send_udp|recv_udp SADDR SPORT DADDR DPORT
 *   TS CPU send_arp           no network header (network_header_type unknown)
 *
 * send is net_dev_queue, recv net_if_receive_skb (no tid context: the
 * thread is the one the switches put on the CPU); an address with a ':' is
 * IPv6 (full form, 8 groups), else IPv4.
 * Exit 0, or 1 with one line on stderr.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_CPUS 64

enum ev_id {
	EV_SWITCH = 0,
	EV_WAKING,
	EV_WAKEUP,
	EV_SOFTIRQ_ENTRY,
	EV_SOFTIRQ_EXIT,
	EV_SOFTIRQ_RAISE,
	EV_NET_QUEUE,
	EV_NET_RECEIVE,
};

struct buf {
	uint8_t *b;
	size_t n, cap;
	int64_t first, last;
	bool any;
};

static struct buf streams[MAX_CPUS];
static int ncpus = 1;
static bool natural;
static char host[64] = "localhost";
static int64_t clock_offset;
static const char *script_name;
static unsigned line_no;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "jank-netgen: %s:%u: ", script_name, line_no);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;

		while (cap < b->n + n)
			cap *= 2;
		b->b = realloc(b->b, cap);
		if (!b->b)
			die("out of memory");
		b->cap = cap;
	}
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

/* Pad to `bits` (a multiple of 8) from the packet's start. */
static void align(struct buf *b, unsigned bits)
{
	static const uint8_t zero[8];
	size_t a = bits / 8;

	if (a > 1 && b->n % a)
		put(b, zero, a - b->n % a);
}

static void le(struct buf *b, uint64_t v, unsigned bytes)
{
	uint8_t x[8];

	for (unsigned i = 0; i < bytes; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, bytes);
}

static void be16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
	be16(p, v >> 16);
	be16(p + 2, v & 0xffff);
}

static void str(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

static long long num(const char *s)
{
	char *end;
	long long v;

	if (!s)
		die("a field is missing");
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || *end)
		die("not a number: %s", s);
	return v;
}

/* An IPv4 (4 bytes) or IPv6 (16) address. */
static int addr(const char *s, uint8_t out[16])
{
	if (!s)
		die("an address is missing");
	if (strchr(s, ':')) {
		unsigned g[8];

		if (sscanf(s, "%x:%x:%x:%x:%x:%x:%x:%x", &g[0], &g[1], &g[2], &g[3], &g[4], &g[5],
			   &g[6], &g[7]) != 8)
			die("not a full IPv6 address: %s", s);
		for (int i = 0; i < 8; i++)
			be16(out + 2 * i, g[i]);
		return 6;
	}
	{
		unsigned a[4];

		if (sscanf(s, "%u.%u.%u.%u", &a[0], &a[1], &a[2], &a[3]) != 4)
			die("not an IPv4 address: %s", s);
		for (int i = 0; i < 4; i++)
			out[i] = (uint8_t)a[i];
		return 4;
	}
}

/* net_dev_queue or net_if_receive_skb: skbaddr, len, name, then the headers. */
static void net_event(struct buf *b, char **f, bool tcp)
{
	uint8_t sa[16], da[16], ip[40], th[20];
	int fam = addr(f[0], sa);
	unsigned payload = tcp ? (unsigned)num(f[7]) : 8;
	unsigned thlen = tcp ? 20 : 8;

	if (addr(f[2], da) != fam)
		die("two address families");
	memset(ip, 0, sizeof(ip));
	memset(th, 0, sizeof(th));
	be16(th, (unsigned)num(f[1]));
	be16(th + 2, (unsigned)num(f[3]));
	if (tcp) {
		unsigned flags = (unsigned)num(f[6]);

		be32(th + 4, (uint32_t)num(f[4]));
		be32(th + 8, (uint32_t)num(f[5]));
		th[12] = (uint8_t)(5 << 4 | ((flags >> 8) & 1));
		th[13] = (uint8_t)flags;
		be16(th + 14, 64240);
	} else {
		be16(th + 4, 8 + payload);
	}
	le(b, 0xffff888000001000ull, 8); /* skbaddr */
	le(b, (fam == 4 ? 20 : 40) + thlen + payload, 4);
	str(b, "eth0");
	le(b, fam == 4 ? 1 : 2, 1); /* network_header_type */
	if (natural)
		align(b, 16);
	if (fam == 4) {
		ip[0] = 0x45;
		be16(ip + 2, 20 + thlen + payload);
		ip[8] = 64;
		ip[9] = tcp ? 6 : 17;
		memcpy(ip + 12, sa, 4);
		memcpy(ip + 16, da, 4);
		put(b, ip, 20);
	} else {
		ip[0] = 0x60;
		be16(ip + 4, thlen + payload);
		ip[6] = tcp ? 6 : 17;
		ip[7] = 64;
		memcpy(ip + 8, sa, 16);
		memcpy(ip + 24, da, 16);
		put(b, ip, 40);
	}
	le(b, tcp ? 1 : 2, 1); /* transport_header_type */
	if (natural)
		align(b, 32);
	put(b, th, thlen);
}

static void event(char **f, int nf)
{
	int64_t ts = num(f[0]);
	long long cpu = num(f[1]);
	const char *name = f[2];
	struct buf *b;

	if (cpu < 0 || cpu >= ncpus)
		die("no CPU %lld", cpu);
	b = &streams[cpu];
	if (b->any && ts < b->last)
		die("time goes back");
	if (!b->any)
		b->first = ts;
	b->any = true;
	b->last = ts;
#define NEED(n)                                                                                    \
	do {                                                                                       \
		if (nf < (n))                                                                      \
			die("%s: %d fields needed", name, (n)-3);                                  \
	} while (0)
	if (!strcmp(name, "switch")) {
		NEED(8);
		le(b, EV_SWITCH, 4);
		le(b, (uint64_t)ts, 8);
		str(b, f[3]);
		le(b, (uint64_t)num(f[4]), 4);
		le(b, 20, 4);
		le(b, (uint64_t)num(f[5]), 8);
		str(b, f[6]);
		le(b, (uint64_t)num(f[7]), 4);
		le(b, 20, 4);
	} else if (!strcmp(name, "waking") || !strcmp(name, "wakeup")) {
		NEED(5);
		le(b, name[4] == 'n' ? EV_WAKING : EV_WAKEUP, 4);
		le(b, (uint64_t)ts, 8);
		str(b, f[3]);
		le(b, (uint64_t)num(f[4]), 4);
		le(b, 20, 4);
		le(b, (uint64_t)cpu, 4);
	} else if (!strncmp(name, "softirq_", 8)) {
		NEED(4);
		le(b,
		   !strcmp(name, "softirq_entry")  ? EV_SOFTIRQ_ENTRY
		   : !strcmp(name, "softirq_exit") ? EV_SOFTIRQ_EXIT
						   : EV_SOFTIRQ_RAISE,
		   4);
		le(b, (uint64_t)ts, 8);
		le(b, (uint64_t)num(f[3]), 4);
	} else if (!strcmp(name, "send") || !strcmp(name, "recv")) {
		NEED(11);
		le(b, name[0] == 's' ? EV_NET_QUEUE : EV_NET_RECEIVE, 4);
		le(b, (uint64_t)ts, 8);
		net_event(b, f + 3, true);
	} else if (!strcmp(name, "send_udp") || !strcmp(name, "recv_udp")) {
		NEED(7);
		le(b, name[0] == 's' ? EV_NET_QUEUE : EV_NET_RECEIVE, 4);
		le(b, (uint64_t)ts, 8);
		net_event(b, f + 3, false);
	} else if (!strcmp(name, "send_arp")) {
		le(b, EV_NET_QUEUE, 4);
		le(b, (uint64_t)ts, 8);
		le(b, 0xffff888000002000ull, 8);
		le(b, 42, 4);
		str(b, "eth0");
		le(b, 0, 1); /* network_header_type unknown: the variant's empty option */
	} else {
		die("unknown event %s", name);
	}
}

/* The metadata: lttng-modules' names and types; `A16`/`A32` are the headers' alignments. */
static void write_metadata(FILE *m)
{
	unsigned a16 = natural ? 16 : 8, a32 = natural ? 32 : 8;
	const char *bits_be = "signed = 0; encoding = none; base = 10; byte_order = be;";

	/* The packet header and context an integer a line, as mock-relayd reads them. */
	fprintf(m, "/* CTF 1.8 */\n"
		   "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		   "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		   "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		   "trace {\n major = 1; minor = 8;\n"
		   " uuid = \"5c4f6a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b\";\n byte_order = le;\n"
		   " packet.header := struct {\n"
		   "  integer { size = 32; align = 8; signed = false; base = 16; } magic;\n"
		   "  integer { size = 8; align = 8; signed = false; } uuid[16];\n"
		   "  integer { size = 32; align = 8; signed = false; } stream_id;\n"
		   " };\n};\n");
	fprintf(m,
		"env {\n hostname = \"%s\";\n domain = \"kernel\";\n kernel_release = \"6.1.0\";\n"
		" tracer_name = \"lttng-modules\";\n tracer_major = 2;\n tracer_minor = 13;\n};\n",
		host);
	fprintf(m,
		"clock {\n name = \"monotonic\";\n uuid = "
		"\"5c4f6a1e-0000-4e5f-8a9b-0c1d2e3f4a5b\";\n"
		" freq = 1000000000;\n precision = 1;\n offset_s = 0;\n offset = %" PRId64 ";\n"
		" absolute = FALSE;\n};\n"
		"typealias integer { size = 64; align = 8; signed = false; map = "
		"clock.monotonic.value; } := uint64_clock_monotonic_t;\n"
		"stream {\n id = 0;\n"
		" event.header := struct { uint32_t id; uint64_clock_monotonic_t timestamp; };\n"
		" packet.context := struct {\n"
		"  integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } "
		"timestamp_begin;\n"
		"  integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } "
		"timestamp_end;\n"
		"  integer { size = 64; align = 8; signed = false; } content_size;\n"
		"  integer { size = 64; align = 8; signed = false; } packet_size;\n"
		"  integer { size = 64; align = 8; signed = false; } packet_seq_num;\n"
		"  integer { size = 64; align = 8; signed = false; } events_discarded;\n"
		"  integer { size = 32; align = 8; signed = false; } cpu_id;\n"
		" };\n};\n",
		clock_offset);
	fprintf(m,
		"event {\n name = \"sched_switch\";\n id = %d;\n stream_id = 0;\n fields := struct "
		"{\n"
		"  string _prev_comm;\n  integer { size = 32; align = 8; signed = 1; } _prev_tid;\n"
		"  integer { size = 32; align = 8; signed = 1; } _prev_prio;\n"
		"  integer { size = 64; align = 8; signed = 1; } _prev_state;\n"
		"  string _next_comm;\n  integer { size = 32; align = 8; signed = 1; } _next_tid;\n"
		"  integer { size = 32; align = 8; signed = 1; } _next_prio;\n };\n};\n",
		EV_SWITCH);
	for (int i = 0; i < 2; i++)
		fprintf(m,
			"event {\n name = \"%s\";\n id = %d;\n stream_id = 0;\n fields := struct "
			"{\n"
			"  string _comm;\n  integer { size = 32; align = 8; signed = 1; } _tid;\n"
			"  integer { size = 32; align = 8; signed = 1; } _prio;\n"
			"  integer { size = 32; align = 8; signed = 1; } _target_cpu;\n };\n};\n",
			i ? "sched_wakeup" : "sched_waking", i ? EV_WAKEUP : EV_WAKING);
	for (int i = 0; i < 3; i++)
		fprintf(m,
			"event {\n name = \"irq_softirq_%s\";\n id = %d;\n stream_id = 0;\n"
			" fields := struct {\n"
			"  integer { size = 32; align = 8; signed = 0; } _vec;\n };\n};\n",
			i == 0	 ? "entry"
			: i == 1 ? "exit"
				 : "raise",
			EV_SOFTIRQ_ENTRY + i);
	for (int i = 0; i < 2; i++) {
		fprintf(m,
			"event {\n name = \"%s\";\n id = %d;\n stream_id = 0;\n"
			" fields := struct {\n"
			"  integer { size = 64; align = 8; signed = 0; base = 16; } _skbaddr;\n"
			"  integer { size = 32; align = 8; signed = 0; } _len;\n  string _name;\n"
			"  enum : integer { size = 8; align = 8; signed = 0; } "
			"{ \"_unknown\" = 0, \"_ipv4\" = 1, \"_ipv6\" = 2 } _network_header_type;\n"
			"  variant <_network_header_type> {\n   struct { } _unknown;\n",
			i ? "net_if_receive_skb" : "net_dev_queue",
			i ? EV_NET_RECEIVE : EV_NET_QUEUE);
		for (int v6 = 0; v6 < 2; v6++) {
			fprintf(m, "   struct {\n");
			if (!v6)
				fprintf(m,
					"    integer { size = 4; align = 4; %s } _version;\n"
					"    integer { size = 4; align = 4; %s } _ihl;\n"
					"    integer { size = 8; align = 8; %s } _tos;\n"
					"    integer { size = 16; align = %u; %s } _tot_len;\n"
					"    integer { size = 16; align = %u; %s } _id;\n"
					"    integer { size = 16; align = %u; %s } _frag_off;\n"
					"    integer { size = 8; align = 8; %s } _ttl;\n"
					"    enum : integer { size = 8; align = 8; %s } { "
					"\"_unknown\" = 0 "
					"... 0, \"_icmp\" = 1, \"_unknown\" = 2 ... 5, \"_tcp\" = "
					"6, "
					"\"_unknown\" = 7 ... 16, \"_udp\" = 17, \"_unknown\" = 18 "
					"... 255 } "
					"_protocol;\n"
					"    integer { size = 16; align = %u; %s } _checksum;\n"
					"    integer { size = 8; align = 8; %s } _saddr[4];\n"
					"    integer { size = 8; align = 8; %s } _daddr[4];\n",
					bits_be, bits_be, bits_be, a16, bits_be, a16, bits_be, a16,
					bits_be, bits_be, bits_be, a16, bits_be, bits_be, bits_be);
			else
				fprintf(m,
					"    integer { size = 4; align = 4; %s } _version;\n"
					"    integer { size = 4; align = 4; %s } _prio;\n"
					"    integer { size = 8; align = 8; %s } _flow_lbl[3];\n"
					"    integer { size = 16; align = %u; %s } _payload_len;\n"
					"    enum : integer { size = 8; align = 8; %s } { "
					"\"_unknown\" = 0 "
					"... 5, \"_tcp\" = 6, \"_unknown\" = 7 ... 16, \"_udp\" = "
					"17, "
					"\"_unknown\" = 18 ... 255 } _nexthdr;\n"
					"    integer { size = 8; align = 8; %s } _hop_limit;\n"
					"    integer { size = 16; align = %u; %s } _saddr[8];\n"
					"    integer { size = 16; align = %u; %s } _daddr[8];\n",
					bits_be, bits_be, bits_be, a16, bits_be, bits_be, bits_be,
					a16, bits_be, a16, bits_be);
			fprintf(m,
				"    enum : integer { size = 8; align = 8; signed = 0; } { "
				"\"_unknown\" = "
				"0, \"_tcp\" = 1, \"_udp\" = 2, \"_icmp\" = 3 } "
				"_transport_header_type;\n"
				"    variant <_transport_header_type> {\n     struct { } "
				"_unknown;\n"
				"     struct {\n"
				"      integer { size = 16; align = %u; %s } _source_port;\n"
				"      integer { size = 16; align = %u; %s } _dest_port;\n"
				"      integer { size = 32; align = %u; %s } _seq;\n"
				"      integer { size = 32; align = %u; %s } _ack_seq;\n"
				"      integer { size = 4; align = 4; %s } _data_offset;\n"
				"      integer { size = 3; align = 1; %s } _reserved;\n"
				"      integer { size = 9; align = 1; %s } _flags;\n"
				"      integer { size = 16; align = %u; %s } _window_size;\n"
				"      integer { size = 16; align = %u; %s } _checksum;\n"
				"      integer { size = 16; align = %u; %s } _urg_ptr;\n     } "
				"_tcp;\n"
				"     struct {\n"
				"      integer { size = 16; align = %u; %s } _source_port;\n"
				"      integer { size = 16; align = %u; %s } _dest_port;\n"
				"      integer { size = 16; align = %u; %s } _len;\n"
				"      integer { size = 16; align = %u; %s } _check;\n     } "
				"_udp;\n"
				"     struct {\n"
				"      integer { size = 8; align = 8; %s } _type;\n"
				"      integer { size = 8; align = 8; %s } _code;\n"
				"      integer { size = 16; align = %u; %s } _checksum;\n"
				"      integer { size = 32; align = %u; %s } _gateway;\n     } "
				"_icmp;\n"
				"    } _transport_header;\n   } _%s;\n",
				a16, bits_be, a16, bits_be, a32, bits_be, a32, bits_be, bits_be,
				bits_be, bits_be, a16, bits_be, a16, bits_be, a16, bits_be, a16,
				bits_be, a16, bits_be, a16, bits_be, a16, bits_be, bits_be, bits_be,
				a16, bits_be, a32, bits_be, v6 ? "ipv6" : "ipv4");
		}
		fprintf(m, "  } _network_header;\n };\n};\n");
	}
}

static void write_stream(const char *dir, int cpu, int64_t end)
{
	struct buf *b = &streams[cpu];
	struct buf h = { 0 };
	char path[4096];
	FILE *f;

	le(&h, 0xc1fc1fc1, 4);
	for (int i = 0; i < 16; i++)
		le(&h,
		   (uint64_t[]){ 0x5c, 0x4f, 0x6a, 0x1e, 0x2b, 0x3d, 0x4e, 0x5f, 0x8a, 0x9b, 0x0c,
				 0x1d, 0x2e, 0x3f, 0x4a, 0x5b }[i],
		   1);
	le(&h, 0, 4);
	le(&h, (uint64_t)(b->any ? b->first : end), 8);
	le(&h, (uint64_t)end, 8);
	/* 76 bytes of header and context, then the events. */
	le(&h, (uint64_t)(76 + b->n) * 8, 8); /* content_size */
	le(&h, (uint64_t)(76 + b->n) * 8, 8); /* packet_size */
	le(&h, 0, 8);
	le(&h, 0, 8);
	le(&h, (uint64_t)cpu, 4);
	snprintf(path, sizeof(path), "%s/channel0_%d", dir, cpu);
	f = fopen(path, "wb");
	if (!f || fwrite(h.b, 1, h.n, f) != h.n || (b->n && fwrite(b->b, 1, b->n, f) != b->n) ||
	    fclose(f))
		die("%s: %s", path, strerror(errno));
	free(h.b);
}

int main(int argc, char **argv)
{
	char line[1024], path[4096];
	int64_t end = 0;
	FILE *in, *m;

	if (argc != 3) {
		fprintf(stderr, "usage: jank-netgen SCRIPT OUTDIR\n");
		return 2;
	}
	script_name = argv[1];
	in = fopen(argv[1], "r");
	if (!in)
		die("%s", strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		char *f[16], *save = NULL;
		int nf = 0;

		line_no++;
		for (char *t = strtok_r(line, " \t\n", &save); t && nf < 16;
		     t = strtok_r(NULL, " \t\n", &save))
			f[nf++] = t;
		if (!nf || f[0][0] == '#')
			continue;
		if (!strcmp(f[0], "@host") && nf == 2)
			snprintf(host, sizeof(host), "%s", f[1]);
		else if (!strcmp(f[0], "@cpus") && nf == 2 && (ncpus = (int)num(f[1])) > 0 &&
			 ncpus <= MAX_CPUS)
			;
		else if (!strcmp(f[0], "@clock-offset") && nf == 2)
			clock_offset = num(f[1]);
		else if (!strcmp(f[0], "@align") && nf == 2)
			natural = !strcmp(f[1], "natural");
		else if (f[0][0] == '@')
			die("bad directive %s", f[0]);
		else if (nf < 3)
			die("an event needs TS CPU NAME");
		else {
			event(f, nf);
			if (num(f[0]) > end)
				end = num(f[0]);
		}
	}
	fclose(in);
	if (mkdir(argv[2], 0755) < 0 && errno != EEXIST)
		die("%s: %s", argv[2], strerror(errno));
	snprintf(path, sizeof(path), "%s/metadata", argv[2]);
	m = fopen(path, "w");
	if (!m)
		die("%s: %s", path, strerror(errno));
	write_metadata(m);
	if (fclose(m))
		die("%s: %s", path, strerror(errno));
	for (int c = 0; c < ncpus; c++)
		write_stream(argv[2], c, end);
	return 0;
}
