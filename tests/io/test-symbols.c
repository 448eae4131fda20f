/* SPDX-License-Identifier: MIT */
/*
 * io/symbols.c on real binaries built here with the compiler ($CC): a PIE
 * executable with a known build-id and a shared object it links, which
 * print where they were loaded (the base as lttng-ust's statedump computes
 * it: dlpi_addr + the first PT_LOAD's p_vaddr) and where their functions
 * are; a non-PIE executable; stripped copies (objcopy --strip-all), a
 * separate debug file found by build-id and by debug link; and files that
 * are missing, of another build, or not ELF at all. Lookups through the
 * symbolizer's index give what libdwfl's own give, on this program and
 * libc; and a shared object of 1,000,000 symbols, written here with
 * libelf, costs a binary search per frame, or is refused past its share of
 * the budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <gelf.h>
#include "dirtree.h"
#include "event.h"
#include "symbols.h"

/* The build-id the test program is linked with (-Wl,--build-id=0x...). */
#define BUILD_ID_HEX "0123456789abcdef0011223344556677deadbeef"

static const uint8_t build_id[] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x00, 0x11,
				    0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0xde, 0xad, 0xbe, 0xef };

static char root[] = "/tmp/jank-test-symbols-XXXXXX";

/* What a run of a test program printed. */
struct run {
	uint64_t exe_base, lib_base;
	uint64_t compute_price, apply_discounts, toy_work, toy_helper;
};

static struct run pie, nopie;

static const char prog_c[] =
	"#define _GNU_SOURCE\n"
	"#include <link.h>\n"
	"#include <stdio.h>\n"
	"#include <string.h>\n"
	"extern int toy_work(int);\n"
	"extern void *toy_helper_addr(void);\n"
	"__attribute__((noinline)) static int apply_discounts(int x) { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int compute_price(int x) { return apply_discounts(x) + 2; }\n"
	"static int seen_exe;\n"
	"static int cb(struct dl_phdr_info *info, size_t size, void *data)\n"
	"{\n"
	"	const char *name = info->dlpi_name ? info->dlpi_name : \"\";\n"
	"	int exe = name[0] == '\\0';\n"
	"	if ((exe && seen_exe) || (!exe && !strstr(name, \"libtoy\")))\n"
	"		return 0;\n"
	"	seen_exe |= exe;\n"
	"	for (int j = 0; j < info->dlpi_phnum; j++)\n"
	"		if (info->dlpi_phdr[j].p_type == PT_LOAD) {\n"
	"			printf(\"%s %lx\\n\", exe ? \"exe_base\" : \"lib_base\",\n"
	"			       (unsigned long)(info->dlpi_addr + "
	"info->dlpi_phdr[j].p_vaddr));\n"
	"			break;\n"
	"		}\n"
	"	return 0;\n"
	"}\n"
	"int main(void)\n"
	"{\n"
	"	printf(\"compute_price %lx\\n\", (unsigned long)&compute_price);\n"
	"	printf(\"apply_discounts %lx\\n\", (unsigned long)&apply_discounts);\n"
	"	printf(\"toy_work %lx\\n\", (unsigned long)&toy_work);\n"
	"	printf(\"toy_helper %lx\\n\", (unsigned long)toy_helper_addr());\n"
	"	dl_iterate_phdr(cb, NULL);\n"
	"	return compute_price(1) + toy_work(2) > 0 ? 0 : 1;\n"
	"}\n";

static const char lib_c[] =
	"__attribute__((noinline)) static int toy_helper(int x) { return x ^ 5; }\n"
	"int toy_work(int x) { return toy_helper(x) + 1; }\n"
	"void *toy_helper_addr(void) { return (void *)&toy_helper; }\n";

/* root/REL */
static const char *at(const char *rel)
{
	static char buf[8][PATH_MAX];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", root, rel);
	return buf[i];
}

static void put(const char *rel, const void *data, size_t n)
{
	FILE *f = fopen(at(rel), "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	if (r != 0)
		fprintf(stderr, "# failed (%d): %s\n", r, cmd);
	return r;
}

static int read_run(const char *rel, struct run *r)
{
	char key[64];
	unsigned long long v;
	FILE *f = fopen(at(rel), "r");

	if (!f)
		return -1;
	memset(r, 0, sizeof(*r));
	while (fscanf(f, "%63s %llx", key, &v) == 2) {
		if (!strcmp(key, "exe_base"))
			r->exe_base = v;
		else if (!strcmp(key, "lib_base"))
			r->lib_base = v;
		else if (!strcmp(key, "compute_price"))
			r->compute_price = v;
		else if (!strcmp(key, "apply_discounts"))
			r->apply_discounts = v;
		else if (!strcmp(key, "toy_work"))
			r->toy_work = v;
		else if (!strcmp(key, "toy_helper"))
			r->toy_helper = v;
	}
	fclose(f);
	return r->exe_base && r->lib_base && r->compute_price && r->apply_discounts &&
			       r->toy_work && r->toy_helper
		       ? 0
		       : -1;
}

/* Build the binaries and their variants, run the two programs. */
static int setup(void **state)
{
	const char *cc = getenv("CC");

	(void)state;
	if (!cc || !*cc)
		cc = "cc";
	if (!mkdtemp(root))
		return -1;
	put("prog.c", prog_c, strlen(prog_c));
	put("libtoy.c", lib_c, strlen(lib_c));
	if (sh("cd %s && %s -O0 -g -fPIC -shared -o libtoy.so libtoy.c", root, cc) ||
	    sh("cd %s && %s -O0 -g -fPIE -pie -Wl,--build-id=0x%s -o prog prog.c -L. -ltoy "
	       "-Wl,-rpath,%s",
	       root, cc, BUILD_ID_HEX, root) ||
	    sh("cd %s && %s -O0 -g -fno-pie -no-pie -o prog-nopie prog.c -L. -ltoy "
	       "-Wl,-rpath,%s",
	       root, cc, root) ||
	    sh("cd %s && ./prog > prog.out && ./prog-nopie > nopie.out", root))
		return -1;
	/* Stripped copies; a debug file by build-id; one by debug link. */
	if (sh("cd %s && objcopy --strip-all prog prog-stripped && "
	       "objcopy --strip-all libtoy.so libtoy-stripped.so && "
	       "objcopy --only-keep-debug prog prog.debug && "
	       "mkdir -p debug/.build-id/01 && "
	       "cp prog.debug debug/.build-id/01/%s.debug && "
	       "mkdir -p linked && cp prog-stripped linked/prog && "
	       "cp prog.debug linked/prog.debug && "
	       "objcopy --add-gnu-debuglink=linked/prog.debug linked/prog && "
	       "mkdir -p root/opt/app && cp prog root/opt/app/prog",
	       root, BUILD_ID_HEX + 2))
		return -1;
	return read_run("prog.out", &pie) || read_run("nopie.out", &nopie) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	return jank_dirtree_remove(root);
}

static struct jank_symbols *fresh(void)
{
	struct jank_symbols *s = jank_symbols_new(0);

	assert_non_null(s);
	/* No system debug files: the test's own directory only. */
	assert_int_equal(jank_symbols_set_debug_dirs(s, ""), 0);
	return s;
}

static void expect(struct jank_symbols *s, int64_t vpid, uint64_t addr,
		   enum jank_symbols_result kind, const char *text)
{
	char buf[256];

	memset(buf, 'x', sizeof(buf));
	assert_int_equal(jank_symbols_lookup(s, vpid, addr, buf, sizeof(buf)), kind);
	assert_string_equal(buf, text);
}

static const char *offset_text(const char *name, uint64_t off)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s+0x%" PRIx64, name, off);
	return buf[i];
}

static void pie_executable(void **state)
{
	struct jank_symbols *s = fresh();
	struct jank_symbols_stats st;
	struct jank_symbols_place pl;

	(void)state;
	assert_int_equal(jank_symbols_add_mapping(s, 100, pie.exe_base, 1 << 20, at("prog"),
						  build_id, sizeof(build_id), NULL, true),
			 0);
	expect(s, 100, pie.compute_price, JANK_SYMBOLS_FUNCTION, "compute_price");
	expect(s, 100, pie.compute_price + 4, JANK_SYMBOLS_FUNCTION, "compute_price");
	expect(s, 100, pie.apply_discounts, JANK_SYMBOLS_FUNCTION, "apply_discounts");
	/* Where: the trace's build-id, the file the symbols came from, the offset. */
	assert_int_equal(jank_symbols_where(s, 100, pie.apply_discounts, &pl), 0);
	assert_string_equal(pl.path, at("prog"));
	assert_int_equal(pl.build_id_len, sizeof(build_id));
	assert_memory_equal(pl.build_id, build_id, sizeof(build_id));
	assert_false(pl.build_id_from_file);
	assert_string_equal(pl.symbol_file, at("prog"));
	assert_int_equal(pl.base, pie.exe_base);
	assert_true(pl.vaddr_known);
	assert_int_equal(pl.offset, pie.apply_discounts - pie.exe_base + pl.first_vaddr);
	/* Another process, the same binary elsewhere: the same symbols, one open binary. */
	assert_int_equal(jank_symbols_add_mapping(s, 200, 0x555500000000ull, 1 << 20, at("prog"),
						  build_id, sizeof(build_id), NULL, true),
			 0);
	expect(s, 200, 0x555500000000ull + (pie.apply_discounts - pie.exe_base),
	       JANK_SYMBOLS_FUNCTION, "apply_discounts");
	/* Again: from the cache (a change of mappings voids it; there was none since). */
	expect(s, 200, 0x555500000000ull + (pie.apply_discounts - pie.exe_base),
	       JANK_SYMBOLS_FUNCTION, "apply_discounts");
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.processes, 2);
	assert_int_equal(st.mappings, 2);
	assert_int_equal(st.binaries, 1);
	assert_int_equal(st.binaries_open, 1);
	assert_int_equal(st.lookups, 5);
	assert_int_equal(st.cache_hits, 1);
	assert_int_equal(st.resolved, 5);
	assert_int_equal(st.unresolved, 0);
	assert_true(st.bytes > 16384 && st.bytes <= st.limit);
	jank_symbols_free(s);
}

static void non_pie_executable(void **state)
{
	struct jank_symbols *s = fresh();

	(void)state;
	/* is_pic false, and the base is the link-time one. */
	assert_int_equal(jank_symbols_add_mapping(s, 1, nopie.exe_base, 1 << 20, at("prog-nopie"),
						  NULL, 0, NULL, false),
			 0);
	expect(s, 1, nopie.compute_price, JANK_SYMBOLS_FUNCTION, "compute_price");
	expect(s, 1, nopie.apply_discounts, JANK_SYMBOLS_FUNCTION, "apply_discounts");
	jank_symbols_free(s);
}

static void shared_object_at_any_base(void **state)
{
	struct jank_symbols *s = fresh();
	uint64_t base = 0x7f0012340000ull;

	(void)state;
	assert_int_equal(jank_symbols_add_mapping(s, 7, pie.lib_base, 1 << 16, at("libtoy.so"),
						  NULL, 0, NULL, true),
			 0);
	expect(s, 7, pie.toy_work, JANK_SYMBOLS_FUNCTION, "toy_work");
	expect(s, 7, pie.toy_helper + 1, JANK_SYMBOLS_FUNCTION, "toy_helper");
	/* The same library at another base in another process. */
	assert_int_equal(
		jank_symbols_add_mapping(s, 8, base, 1 << 16, at("libtoy.so"), NULL, 0, NULL, true),
		0);
	expect(s, 8, base + (pie.toy_work - pie.lib_base), JANK_SYMBOLS_FUNCTION, "toy_work");
	expect(s, 8, base + (pie.toy_helper - pie.lib_base), JANK_SYMBOLS_FUNCTION, "toy_helper");
	/* Process 7 has nothing there. */
	expect(s, 7, base + 16, JANK_SYMBOLS_UNMAPPED, "0x7f0012340010");
	jank_symbols_free(s);
}

static void stripped_binaries(void **state)
{
	struct jank_symbols *s = fresh();

	(void)state;
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, at("prog-stripped"),
						  NULL, 0, NULL, true),
			 0);
	/* No .symtab, and a PIE exports nothing in .dynsym: binary+offset. */
	expect(s, 1, pie.apply_discounts, JANK_SYMBOLS_OFFSET,
	       offset_text("prog-stripped", pie.apply_discounts - pie.exe_base));
	expect(s, 1, pie.compute_price + 3, JANK_SYMBOLS_OFFSET,
	       offset_text("prog-stripped", pie.compute_price + 3 - pie.exe_base));
	/* The stripped library keeps its .dynsym: exported functions still resolve. */
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.lib_base, 1 << 16,
						  at("libtoy-stripped.so"), NULL, 0, NULL, true),
			 0);
	expect(s, 1, pie.toy_work, JANK_SYMBOLS_FUNCTION, "toy_work");
	/* but not a static one, nor as the exported function before it. */
	expect(s, 1, pie.toy_helper, JANK_SYMBOLS_OFFSET,
	       offset_text("libtoy-stripped.so", pie.toy_helper - pie.lib_base));
	jank_symbols_free(s);
}

struct listing {
	int n, with_id, stop_at;
	char from[8]; /* per binary: 'd' debug file, 'b' the binary, '-' none */
};

static int list_binary(const char *path, const uint8_t *id, size_t len, const char *file,
		       void *data)
{
	struct listing *l = data;
	char want[PATH_MAX];

	if (l->stop_at)
		return 7;
	assert_string_equal(path, at("prog-stripped"));
	snprintf(want, sizeof(want), "%s/.build-id/01/%s.debug", at("debug"), BUILD_ID_HEX + 2);
	l->from[l->n++] = !file ? '-' : strcmp(file, want) == 0 ? 'd' : 'b';
	if (len) {
		assert_int_equal(len, sizeof(build_id));
		assert_memory_equal(id, build_id, len);
		l->with_id++;
	}
	return 0;
}

static void separate_debug_files(void **state)
{
	struct jank_symbols *s = fresh();
	char dirs[PATH_MAX + 32];

	(void)state;
	/* By build-id, under a debug directory. */
	snprintf(dirs, sizeof(dirs), "/nonexistent:%s", at("debug"));
	assert_int_equal(jank_symbols_set_debug_dirs(s, dirs), 0);
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, at("prog-stripped"),
						  build_id, sizeof(build_id), NULL, true),
			 0);
	expect(s, 1, pie.apply_discounts, JANK_SYMBOLS_FUNCTION, "apply_discounts");
	/* The build-id from the file itself when the trace gave none. */
	assert_int_equal(jank_symbols_add_mapping(s, 2, pie.exe_base, 1 << 20, at("prog-stripped"),
						  NULL, 0, NULL, true),
			 0);
	expect(s, 2, pie.compute_price, JANK_SYMBOLS_FUNCTION, "compute_price");
	/* Both mappings' binaries came from the debug file. */
	{
		struct listing l = { 0 };

		assert_int_equal(jank_symbols_for_each_binary(s, list_binary, &l), 0);
		assert_int_equal(l.n, 2);
		assert_int_equal(l.with_id, 1);
		assert_int_equal(l.from[0], 'd');
		assert_int_equal(l.from[1], 'd');
		l.stop_at = 1;
		assert_int_equal(jank_symbols_for_each_binary(s, list_binary, &l), 7);
	}
	jank_symbols_free(s);

	/* By debug link, beside the binary (no debug directory). */
	s = fresh();
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, at("linked/prog"),
						  NULL, 0, NULL, true),
			 0);
	expect(s, 1, pie.apply_discounts, JANK_SYMBOLS_FUNCTION, "apply_discounts");
	/* A debug link the trace gave, to a file that is not there: binary+offset. */
	assert_int_equal(jank_symbols_add_mapping(s, 2, pie.exe_base, 1 << 20, at("prog-stripped"),
						  NULL, 0, NULL, true),
			 0);
	assert_int_equal(jank_symbols_set_debug_link(s, 2, pie.exe_base, "absent.debug"), 0);
	expect(s, 2, pie.apply_discounts, JANK_SYMBOLS_OFFSET,
	       offset_text("prog-stripped", pie.apply_discounts - pie.exe_base));
	/* A debug link is a file name, never a path. */
	assert_int_equal(jank_symbols_set_debug_link(s, 2, pie.exe_base, "../prog.debug"), 0);
	expect(s, 2, pie.apply_discounts, JANK_SYMBOLS_OFFSET,
	       offset_text("prog-stripped", pie.apply_discounts - pie.exe_base));
	assert_int_equal(jank_symbols_set_debug_link(s, 3, pie.exe_base, "x"), -ENOENT);
	jank_symbols_free(s);
}

static void missing_file(void **state)
{
	struct jank_symbols *s = fresh();
	struct jank_symbols_stats st;
	struct jank_symbols_place pl;

	(void)state;
	assert_int_equal(jank_symbols_add_mapping(s, 1, 0x7f0000000000ull, 0x10000,
						  "/nonexistent/libgone.so.1", NULL, 0, NULL, true),
			 0);
	expect(s, 1, 0x7f0000001234ull, JANK_SYMBOLS_OFFSET, "libgone.so.1+0x1234");
	/* Not PIC, no file: the address is the binary's own. */
	assert_int_equal(jank_symbols_add_mapping(s, 1, 0x400000, 0x10000, "/nonexistent/app", NULL,
						  0, NULL, false),
			 0);
	expect(s, 1, 0x401000, JANK_SYMBOLS_OFFSET, "app+0x401000");
	/* A relative path, as lttng-ust names the vDSO: never opened. */
	assert_int_equal(jank_symbols_add_mapping(s, 1, 0x7ffd00000000ull, 0x2000, "[vdso]", NULL,
						  0, NULL, true),
			 0);
	expect(s, 1, 0x7ffd00000100ull, JANK_SYMBOLS_OFFSET, "[vdso]+0x100");
	/* Where: the binary and the offset its text gives; nothing outside a mapping. */
	assert_int_equal(jank_symbols_where(s, 1, 0x7f0000001234ull, &pl), 0);
	assert_string_equal(pl.path, "/nonexistent/libgone.so.1");
	assert_int_equal(pl.offset, 0x1234);
	assert_int_equal(pl.base, 0x7f0000000000ull);
	assert_int_equal(pl.memsz, 0x10000);
	assert_true(pl.is_pic && !pl.vaddr_known);
	assert_null(pl.build_id);
	assert_null(pl.symbol_file);
	assert_int_equal(jank_symbols_where(s, 1, 0x401000, &pl), 0);
	assert_int_equal(pl.offset, 0x401000);
	assert_int_equal(jank_symbols_where(s, 1, 0x10, &pl), -ENOENT);
	assert_int_equal(jank_symbols_where(s, 2, 0x401000, &pl), -ENOENT);
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.bad_files, 3);
	assert_int_equal(st.unresolved, 3);
	jank_symbols_free(s);
}

static void build_id_mismatch(void **state)
{
	struct jank_symbols *s = fresh();
	uint8_t other[sizeof(build_id)];

	(void)state;
	memcpy(other, build_id, sizeof(other));
	other[5] ^= 1;
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, at("prog"), other,
						  sizeof(other), NULL, true),
			 0);
	expect(s, 1, pie.compute_price, JANK_SYMBOLS_OFFSET,
	       offset_text("prog", pie.compute_price - pie.exe_base));
	/* The right build-id, in its own event after bin_info: resolved. */
	assert_int_equal(jank_symbols_set_build_id(s, 1, pie.exe_base, build_id, sizeof(build_id)),
			 0);
	expect(s, 1, pie.compute_price, JANK_SYMBOLS_FUNCTION, "compute_price");
	/* A file without a build-id is not the one a build-id names. */
	assert_int_equal(jank_symbols_add_mapping(s, 2, nopie.exe_base, 1 << 20, at("prog-nopie"),
						  build_id, sizeof(build_id), NULL, false),
			 0);
	expect(s, 2, nopie.compute_price, JANK_SYMBOLS_OFFSET,
	       offset_text("prog-nopie", nopie.compute_price));
	assert_int_equal(jank_symbols_set_build_id(s, 9, 0, build_id, 4), -ENOENT);
	jank_symbols_free(s);
}

static void bad_files(void **state)
{
	struct jank_symbols *s = fresh();
	static const char *const files[] = { "garbage", "truncated", "bad-phdrs",
					     "empty",	"elf-rel",   "." };
	char buf[4096];
	FILE *f;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7919 + 13);
	put("garbage", buf, sizeof(buf));
	put("empty", "", 0);
	/* The first 300 bytes of a real ELF file. */
	f = fopen(at("prog"), "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(n == sizeof(buf));
	put("truncated", buf, 300);
	/* An ELF header whose program headers point far outside the file. */
	memset(buf + 32, 0x7f, 8); /* e_phoff */
	buf[56] = (char)0xff;	   /* e_phnum */
	buf[57] = (char)0xff;
	put("bad-phdrs", buf, sizeof(buf));
	assert_int_equal(sh("cd %s && printf 'int f(void){return 1;}' > rel.c && ${CC:-cc} -c "
			    "-o elf-rel rel.c",
			    root),
			 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		uint64_t base = 0x100000000ull * (i + 1);
		char want[PATH_MAX];
		const char *path = at(files[i]);
		const char *slash = strrchr(path, '/');

		assert_int_equal(
			jank_symbols_add_mapping(s, 1, base, 0x10000, path, NULL, 0, NULL, true),
			0);
		snprintf(want, sizeof(want), "%s+0x10", strcmp(files[i], ".") ? slash + 1 : ".");
		expect(s, 1, base + 0x10, JANK_SYMBOLS_OFFSET, want);
	}
	/* Not regular files: a device (never read), a FIFO (never waited on). */
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	assert_int_equal(
		jank_symbols_add_mapping(s, 1, 0x1000, 0x1000, at("fifo"), NULL, 0, NULL, true), 0);
	expect(s, 1, 0x1008, JANK_SYMBOLS_OFFSET, "fifo+0x8");
	assert_int_equal(
		jank_symbols_add_mapping(s, 1, 0x3000, 0x1000, "/dev/zero", NULL, 0, NULL, true),
		0);
	expect(s, 1, 0x3008, JANK_SYMBOLS_OFFSET, "zero+0x8");
	jank_symbols_free(s);
}

static void mappings_replace_and_go(void **state)
{
	struct jank_symbols *s = fresh();
	struct jank_symbols_stats st;

	(void)state;
	assert_int_equal(
		jank_symbols_add_mapping(s, 1, 0x10000, 0x10000, "/x/a", NULL, 0, NULL, true), 0);
	assert_int_equal(
		jank_symbols_add_mapping(s, 1, 0x30000, 0x10000, "/x/c", NULL, 0, NULL, true), 0);
	expect(s, 1, 0x10010, JANK_SYMBOLS_OFFSET, "a+0x10");
	expect(s, 1, 0x20010, JANK_SYMBOLS_UNMAPPED, "0x20010");
	expect(s, 1, 0x30010, JANK_SYMBOLS_OFFSET, "c+0x10");
	/* b overlaps the end of a and the start of c: both go. */
	assert_int_equal(
		jank_symbols_add_mapping(s, 1, 0x18000, 0x20000, "/x/b", NULL, 0, NULL, true), 0);
	expect(s, 1, 0x10010, JANK_SYMBOLS_UNMAPPED, "0x10010");
	expect(s, 1, 0x20010, JANK_SYMBOLS_OFFSET, "b+0x8010");
	expect(s, 1, 0x3c000, JANK_SYMBOLS_UNMAPPED, "0x3c000");
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.mappings, 1);
	assert_int_equal(st.binaries, 1);
	/* dlclose */
	assert_int_equal(jank_symbols_remove_mapping(s, 1, 0x10000), -ENOENT);
	assert_int_equal(jank_symbols_remove_mapping(s, 1, 0x18000), 0);
	expect(s, 1, 0x20010, JANK_SYMBOLS_UNMAPPED, "0x20010");
	/* A process that goes takes its mappings. */
	assert_int_equal(jank_symbols_add_mapping(s, 2, 0x10000, 0, "/x/d", NULL, 0, NULL, true),
			 0);
	expect(s, 2, 0x7fffffff, JANK_SYMBOLS_OFFSET, "d+0x7ffeffff"); /* memsz 0: no end */
	jank_symbols_forget_process(s, 2);
	expect(s, 2, 0x10010, JANK_SYMBOLS_UNMAPPED, "0x10010");
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.mappings, 0);
	assert_int_equal(st.binaries, 0);
	assert_int_equal(st.processes, 1);
	/* Bad arguments. */
	assert_int_equal(jank_symbols_add_mapping(s, 1, 0, 1, NULL, NULL, 0, NULL, true), -EINVAL);
	assert_int_equal(jank_symbols_add_mapping(s, 1, 0, 1, "", NULL, 0, NULL, true), -EINVAL);
	jank_symbols_free(s);
}

static void small_buffers(void **state)
{
	struct jank_symbols *s = fresh();
	char buf[5];

	(void)state;
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, at("prog"), NULL, 0,
						  NULL, true),
			 0);
	assert_int_equal(jank_symbols_lookup(s, 1, pie.compute_price, buf, sizeof(buf)),
			 JANK_SYMBOLS_FUNCTION);
	assert_string_equal(buf, "comp");
	jank_symbols_free(s);
}

/* The three test binaries in process 1, each looked up three times, within `limit`. */
static struct jank_symbols *limited_three(size_t limit, size_t *none)
{
	struct jank_symbols *s = jank_symbols_new(limit);
	struct jank_symbols_stats st;

	assert_non_null(s);
	assert_int_equal(jank_symbols_set_debug_dirs(s, ""), 0);
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, at("prog"), NULL, 0,
						  NULL, true),
			 0);
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.lib_base, 1 << 16, at("libtoy.so"),
						  NULL, 0, NULL, true),
			 0);
	assert_int_equal(jank_symbols_add_mapping(s, 1, nopie.exe_base, 1 << 20, at("prog-nopie"),
						  NULL, 0, NULL, false),
			 0);
	/* Before any lookup, the cache's texts included. */
	jank_symbols_get_stats(s, &st);
	if (none)
		*none = st.bytes + 9 * 64;
	for (int round = 0; round < 3; round++) {
		expect(s, 1, pie.compute_price + (uint64_t)round, JANK_SYMBOLS_FUNCTION,
		       "compute_price");
		expect(s, 1, pie.toy_work + (uint64_t)round, JANK_SYMBOLS_FUNCTION, "toy_work");
		expect(s, 1, nopie.apply_discounts + (uint64_t)round, JANK_SYMBOLS_FUNCTION,
		       "apply_discounts");
		jank_symbols_get_stats(s, &st);
		assert_true(st.bytes <= st.limit);
	}
	return s;
}

static void memory_limit(void **state)
{
	struct jank_symbols *s = jank_symbols_new(256 * 1024);
	struct jank_symbols_stats st;
	int r = 0;

	(void)state;
	assert_non_null(s);
	assert_int_equal(jank_symbols_set_debug_dirs(s, ""), 0);
	/*
	 * Mappings take at most half of the limit: past it, the processes least
	 * recently used are forgotten (1,000 processes come and go, as in weeks
	 * of short-lived ones); process 0, looked up all along, stays.
	 */
	assert_int_equal(jank_symbols_add_mapping(s, 0, 0x1000, 0x1000, "/nonexistent/lib0.so",
						  NULL, 0, NULL, true),
			 0);
	for (unsigned i = 1; i < 1000 && r == 0; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/nonexistent/lib%u.so", i);
		r = jank_symbols_add_mapping(s, (int64_t)i, 0x1000, 0x1000, path, NULL, 0, NULL,
					     true);
		expect(s, 0, 0x1010, JANK_SYMBOLS_OFFSET, "lib0.so+0x10");
	}
	assert_int_equal(r, 0);
	expect(s, 999, 0x1010, JANK_SYMBOLS_OFFSET, "lib999.so+0x10");
	expect(s, 1, 0x1010, JANK_SYMBOLS_UNMAPPED, "0x1010"); /* forgotten long ago */
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.dropped, 0);
	assert_true(st.forgotten > 500);
	assert_int_equal(st.processes + st.forgotten, 1000);
	assert_true(st.bytes <= st.limit);
	/* One process's mappings alone past half of the limit: refused and counted. */
	for (unsigned i = 0; i < 100000 && r == 0; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/nonexistent/dir/lib%u.so", i);
		r = jank_symbols_add_mapping(s, 2000, 0x1000 + 0x1000 * (uint64_t)i, 0x1000, path,
					     NULL, 0, NULL, true);
	}
	assert_int_equal(r, -ENOSPC);
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.dropped, 1);
	assert_int_equal(st.processes, 1);
	assert_true(st.bytes <= st.limit);
	jank_symbols_free(s);

	/*
	 * Open binaries: measure what three cost, then give room for two; the
	 * least recently used one is closed to open the third.
	 */
	{
		size_t none, three;

		s = limited_three(64u << 20, &none);
		jank_symbols_get_stats(s, &st);
		three = st.bytes;
		assert_int_equal(st.binaries_open, 3);
		assert_int_equal(st.evictions, 0);
		jank_symbols_free(s);
		s = limited_three(none + (three - none) * 3 / 4, NULL);
	}
	jank_symbols_get_stats(s, &st);
	assert_true(st.binaries_open < 3);
	assert_true(st.evictions >= 2);
	jank_symbols_free(s);
}

/* Keeps its name: the /proc test looks it up in this very program. */
__attribute__((noinline)) int jank_test_symbols_marker(int x);
__attribute__((noinline)) int jank_test_symbols_marker(int x)
{
	return x * 11;
}

static void proc_maps(void **state)
{
	struct jank_symbols *s = fresh();
	int (*volatile fn)(int) = jank_test_symbols_marker;
	pid_t (*volatile gp)(void) = getpid;
	char buf[256], err[256];
	int n;

	(void)state;
	n = jank_symbols_add_proc_maps(s, getpid(), 42, err, sizeof(err));
	assert_true(n >= 2); /* this program, libc, ... */
	expect(s, 42, (uint64_t)(uintptr_t)fn + 2, JANK_SYMBOLS_FUNCTION,
	       "jank_test_symbols_marker");
	/* libc's own function, from its .dynsym (or its debug file, when installed). */
	assert_int_equal(jank_symbols_lookup(s, 42, (uint64_t)(uintptr_t)gp, buf, sizeof(buf)),
			 JANK_SYMBOLS_FUNCTION);
	assert_non_null(strstr(buf, "getpid"));
	/* A process that is not there. */
	assert_true(jank_symbols_add_proc_maps(s, -1, 43, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "/proc/-1/maps"));
	jank_symbols_free(s);
}

static void root_directory(void **state)
{
	struct jank_symbols *s = fresh();
	char r[PATH_MAX];

	(void)state;
	snprintf(r, sizeof(r), "%s/", at("root"));
	assert_int_equal(jank_symbols_set_root(s, r), 0);
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, "/opt/app/prog",
						  build_id, sizeof(build_id), NULL, true),
			 0);
	expect(s, 1, pie.compute_price, JANK_SYMBOLS_FUNCTION, "compute_price");
	assert_int_equal(jank_symbols_set_debug_dirs(s, "relative/dir"), -EINVAL);
	jank_symbols_free(s);
}

/* A fake binary opener: the file `path` for process `pid` at `base`, counted. */
struct fake_opener {
	const char *path;
	int64_t pid;
	uint64_t base;
	int asked;
	uint32_t pid_ns; /* the last request's */
};

static int fake_open(const struct jank_symbols_open_req *r, void *data)
{
	struct fake_opener *o = data;

	o->asked++;
	o->pid_ns = r->pid_ns;
	if (r->vpid != o->pid || r->addr != o->base || !o->path)
		return -ESRCH;
	return open(o->path, O_RDONLY | O_CLOEXEC);
}

/* A fetcher (debuginfod's, in jankd and jankctl): -EAGAIN `wait` times, then `file`. */
struct fake_fetch {
	int wait;
	const char *file; /* NULL: -ENOENT */
	unsigned calls;
	uint8_t id[JANK_SYMBOLS_MAX_BUILD_ID];
	size_t len;
};

static int fake_fetch(const uint8_t *id, size_t len, char *path, size_t pathlen, void *data)
{
	struct fake_fetch *f = data;

	f->calls++;
	memcpy(f->id, id, len);
	f->len = len;
	if (f->wait > 0) {
		f->wait--;
		return -EAGAIN;
	}
	if (!f->file)
		return -ENOENT;
	snprintf(path, pathlen, "%s", at(f->file));
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void fetcher(void **state)
{
	struct fake_fetch f = { .wait = 1, .file = "prog.debug" };
	uint64_t off = pie.apply_discounts - pie.exe_base;
	struct jank_symbols_stats st;
	struct jank_symbols_place pl;
	struct jank_symbols *s;

	(void)state;
	/* A remote binary: absent here, its build-id from the trace. */
	s = fresh();
	jank_symbols_set_fetcher(s, fake_fetch, &f);
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, "/remote/prog",
						  build_id, sizeof(build_id), NULL, true),
			 0);
	/* Under way: the offset meanwhile, asked by build-id. */
	expect(s, 1, pie.apply_discounts, JANK_SYMBOLS_OFFSET, offset_text("prog", off));
	assert_int_equal(f.calls, 1);
	assert_int_equal(f.len, sizeof(build_id));
	assert_memory_equal(f.id, build_id, sizeof(build_id));
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.fetch_waiting, 1);
	/* Before its back-off, not asked again (the cached text). */
	expect(s, 1, pie.apply_discounts, JANK_SYMBOLS_OFFSET, offset_text("prog", off));
	assert_int_equal(f.calls, 1);
	/* By code location (the interned stacks' lookups): the same, until it comes. */
	{
		uint32_t code;
		uint64_t off2;
		char buf[128];

		assert_true(jank_symbols_locate(s, 1, pie.apply_discounts, &code, &off2));
		assert_int_equal(jank_symbols_lookup_code(s, code, off2, buf, sizeof(buf)),
				 JANK_SYMBOLS_OFFSET);
		usleep(300000);
		assert_int_equal(jank_symbols_lookup_code(s, code, off2, buf, sizeof(buf)),
				 JANK_SYMBOLS_FUNCTION);
		assert_string_equal(buf, "apply_discounts");
	}
	/* And by address: named. */
	expect(s, 1, pie.apply_discounts, JANK_SYMBOLS_FUNCTION, "apply_discounts");
	assert_int_equal(f.calls, 2);
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.fetch_waiting, 0);
	assert_int_equal(st.fetched, 1);
	assert_int_equal(jank_symbols_where(s, 1, pie.apply_discounts, &pl), 0);
	assert_string_equal(pl.symbol_file, at("prog.debug"));
	jank_symbols_free(s);

	/* A stripped binary here: the same; one with its own .symtab: never asked. */
	f = (struct fake_fetch){ .file = "prog.debug" };
	s = fresh();
	jank_symbols_set_fetcher(s, fake_fetch, &f);
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, at("prog-stripped"),
						  build_id, sizeof(build_id), NULL, true),
			 0);
	assert_int_equal(jank_symbols_add_mapping(s, 2, pie.exe_base, 1 << 20, at("prog"), build_id,
						  sizeof(build_id), NULL, true),
			 0);
	expect(s, 1, pie.apply_discounts, JANK_SYMBOLS_FUNCTION, "apply_discounts");
	expect(s, 2, pie.apply_discounts, JANK_SYMBOLS_FUNCTION, "apply_discounts");
	assert_int_equal(f.calls, 1);
	jank_symbols_free(s);

	/* A file of another build: not used. None: not asked again. No build-id: never asked. */
	f = (struct fake_fetch){ .file = "libtoy.so" };
	s = fresh();
	jank_symbols_set_fetcher(s, fake_fetch, &f);
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, "/remote/prog",
						  build_id, sizeof(build_id), NULL, true),
			 0);
	expect(s, 1, pie.apply_discounts, JANK_SYMBOLS_OFFSET, offset_text("prog", off));
	f.file = NULL;
	usleep(300000);
	expect(s, 1, pie.apply_discounts + 1, JANK_SYMBOLS_OFFSET, offset_text("prog", off + 1));
	assert_int_equal(f.calls, 1);
	assert_int_equal(jank_symbols_add_mapping(s, 2, pie.exe_base, 1 << 20, "/remote/other",
						  NULL, 0, NULL, true),
			 0);
	expect(s, 2, pie.apply_discounts, JANK_SYMBOLS_OFFSET, offset_text("other", off));
	assert_int_equal(f.calls, 1);
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.fetched, 0);
	jank_symbols_free(s);
}

static void opener(void **state)
{
	struct jank_symbols *s = fresh();
	struct jank_symbols_stats st;
	struct fake_opener o = { .path = at("prog"), .pid = 7, .base = pie.exe_base };
	uint8_t other[sizeof(build_id)];

	(void)state;
	jank_symbols_set_opener(s, fake_open, &o);
	/* Not at its path (a container, a private directory): the mapped file names it. */
	assert_int_equal(jank_symbols_add_mapping(s, 7, pie.exe_base, 1 << 20, at("gone/prog"),
						  NULL, 0, NULL, true),
			 0);
	expect(s, 7, pie.compute_price, JANK_SYMBOLS_FUNCTION, "compute_price");
	assert_int_equal(o.asked, 1);
	/* Replaced at its path by another build: the mapped file, not the path's. */
	assert_int_equal(jank_symbols_add_mapping(s, 7, pie.exe_base, 1 << 20, at("prog-nopie"),
						  build_id, sizeof(build_id), NULL, true),
			 0);
	assert_int_equal(o.asked, 2); /* opened as soon as mapped, with a build-id */
	expect(s, 7, pie.compute_price, JANK_SYMBOLS_FUNCTION, "compute_price");
	assert_int_equal(o.asked, 2);
	/* The mapped file is not the build the trace recorded either: binary+offset. */
	memcpy(other, build_id, sizeof(other));
	other[3] ^= 1;
	assert_int_equal(jank_symbols_add_mapping(s, 7, pie.exe_base, 1 << 20, at("prog-nopie"),
						  other, sizeof(other), NULL, true),
			 0);
	expect(s, 7, pie.compute_price, JANK_SYMBOLS_OFFSET,
	       offset_text("prog-nopie", pie.compute_price - pie.exe_base));
	/* A readable file of the right build: the opener is not asked. */
	o.asked = 0;
	assert_int_equal(jank_symbols_add_mapping(s, 8, pie.exe_base, 1 << 20, at("prog"), build_id,
						  sizeof(build_id), NULL, true),
			 0);
	expect(s, 8, pie.compute_price, JANK_SYMBOLS_FUNCTION, "compute_price");
	assert_int_equal(o.asked, 0);
	/* The opener refuses (the process is gone): binary+offset. */
	assert_int_equal(jank_symbols_add_mapping(s, 9, pie.exe_base, 1 << 20, at("gone/prog2"),
						  NULL, 0, NULL, true),
			 0);
	expect(s, 9, pie.compute_price, JANK_SYMBOLS_OFFSET,
	       offset_text("prog2", pie.compute_price - pie.exe_base));
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.opener_opened, 3); /* the third, of another build, was not used */
	assert_int_equal(st.opener_refused, 1);
	jank_symbols_free(s);
}

/*
 * Two containers' pid 1: the same vpid in two PID namespaces (the trace's
 * pid_ns context), each mapping its own binary at the same base. Keyed by
 * (namespace, vpid), each is named from its own binary; the opener is
 * asked for the pid the trace gave, in its namespace; forgetting one
 * leaves the other. The vpid alone (a frame named by its pid, without a
 * code location) is either process's only when there is one of that pid.
 */
static void pid_namespaces(void **state)
{
	struct jank_symbols *s = fresh();
	struct fake_opener o = { .path = at("prog"), .pid = 1, .base = pie.exe_base };
	const int64_t a = jank_process_key(4026532001u, 1), b = jank_process_key(4026532002u, 1);
	uint32_t ca, cb;
	uint64_t oa, ob;
	char bare[32];

	(void)state;
	snprintf(bare, sizeof(bare), "0x%" PRIx64, pie.compute_price);
	assert_true(a != b && a > INT32_MAX && b > INT32_MAX);
	assert_int_equal(jank_process_key(0, 1), 1);
	assert_int_equal(jank_process_key_pid(a), 1);
	assert_int_equal(jank_process_key_pid(b), 1);
	assert_int_equal(jank_process_key_pid(77), 77);
	jank_symbols_set_opener(s, fake_open, &o);
	/* Container A's pid 1 runs prog, container B's pid 1 libtoy.so, both at one base. */
	assert_int_equal(jank_symbols_add_mapping(s, a, pie.exe_base, 1 << 20, at("gone/prog"),
						  NULL, 0, NULL, true),
			 0);
	assert_int_equal(jank_symbols_add_mapping(s, b, pie.exe_base, 1 << 16, at("libtoy.so"),
						  NULL, 0, NULL, true),
			 0);
	expect(s, a, pie.compute_price, JANK_SYMBOLS_FUNCTION, "compute_price");
	assert_int_equal(o.asked, 1); /* for pid 1 in its namespace, not the key */
	assert_int_equal(o.pid_ns, 4026532001u);
	expect(s, b, pie.exe_base + (pie.toy_work - pie.lib_base), JANK_SYMBOLS_FUNCTION,
	       "toy_work");
	/* Stacks by code location: two binaries, so two codes. */
	assert_true(jank_symbols_code_locator(a, pie.compute_price, &ca, &oa, s));
	assert_true(jank_symbols_code_locator(b, pie.exe_base + (pie.toy_work - pie.lib_base), &cb,
					      &ob, s));
	assert_true(ca && cb && ca != cb);
	/* The vpid alone: two processes of that pid, so neither. */
	expect(s, 1, pie.compute_price, JANK_SYMBOLS_UNMAPPED, bare);
	jank_symbols_forget_process(s, a);
	expect(s, a, pie.compute_price, JANK_SYMBOLS_UNMAPPED, bare);
	expect(s, b, pie.exe_base + (pie.toy_helper - pie.lib_base), JANK_SYMBOLS_FUNCTION,
	       "toy_helper");
	/* One left: the vpid alone is it. */
	expect(s, 1, pie.exe_base + (pie.toy_work - pie.lib_base), JANK_SYMBOLS_FUNCTION,
	       "toy_work");
	/* A process of that vpid without a namespace is itself, first. */
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, at("prog"), NULL, 0,
						  NULL, true),
			 0);
	expect(s, 1, pie.compute_price, JANK_SYMBOLS_FUNCTION, "compute_price");
	jank_symbols_free(s);
}

/*
 * A crafted ELF: the stripped program with a .gnu_debugdata of 256 MiB of
 * zeros, xz-compressed to 38 KB. libdwfl would unpack all of it; the
 * symbolizer measures it first (never past a quarter of its limit) and
 * refuses the file: binary+offset, counted in too_big, and the process's
 * peak RSS does not grow by the 256 MiB. One of 1 MiB is used, its cost counted.
 */
static void debugdata_bomb(void **state)
{
	struct jank_symbols *s;
	struct jank_symbols_stats st;
	struct rusage ru0, ru1;
	struct timespec t0, t1;
	size_t bytes;

	(void)state;
	if (sh("cd %s && head -c 268435456 /dev/zero | xz -0 -T1 -c > bomb.xz && "
	       "objcopy --add-section .gnu_debugdata=bomb.xz prog-stripped prog-bomb && "
	       "head -c 1048576 /dev/zero | xz -0 -c > mini.xz && "
	       "objcopy --add-section .gnu_debugdata=mini.xz prog-stripped prog-mini",
	       root))
		skip();
	s = fresh();
	getrusage(RUSAGE_SELF, &ru0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(jank_symbols_add_mapping(s, 1, pie.exe_base, 1 << 20, at("prog-bomb"),
						  build_id, sizeof(build_id), NULL, true),
			 0);
	expect(s, 1, pie.compute_price, JANK_SYMBOLS_OFFSET,
	       offset_text("prog-bomb", pie.compute_price - pie.exe_base));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &ru1);
	jank_symbols_get_stats(s, &st);
	print_message("# .gnu_debugdata unpacking to 256 MiB: refused in %.3f s, peak RSS +%ld KiB "
		      "(limit %" PRIu64 " MiB)\n",
		      (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		      ru1.ru_maxrss - ru0.ru_maxrss, st.limit >> 20);
	assert_int_equal(st.too_big, 1);
	assert_true(ru1.ru_maxrss - ru0.ru_maxrss < 32 * 1024);
	bytes = (size_t)st.bytes;
	assert_int_equal(jank_symbols_add_mapping(s, 2, pie.exe_base, 1 << 20, at("prog-mini"),
						  build_id, sizeof(build_id), NULL, true),
			 0);
	expect(s, 2, pie.compute_price, JANK_SYMBOLS_OFFSET,
	       offset_text("prog-mini", pie.compute_price - pie.exe_base));
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.too_big, 1);
	assert_int_equal(st.binaries_open, 1);
	assert_true(st.bytes >= bytes + (1u << 20)); /* the unpacked MiB, counted */
	jank_symbols_free(s);
}

/* Addresses strided through the executable mappings of this process (this program, libc...). */
static void index_matches_libdwfl(void **state)
{
	struct jank_symbols *ix = fresh(), *dw = fresh();
	char a[256], b[256], line[512], err[256];
	unsigned long lo, hi;
	size_t n = 0, named = 0;
	char perms[8];
	FILE *f;

	(void)state;
	jank_symbols_set_index(dw, false);
	assert_true(jank_symbols_add_proc_maps(ix, getpid(), 42, err, sizeof(err)) >= 2);
	assert_true(jank_symbols_add_proc_maps(dw, getpid(), 42, err, sizeof(err)) >= 2);
	f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x' ||
		    !strchr(line, '/'))
			continue;
		for (uint64_t addr = lo; addr < hi; addr += 61) {
			enum jank_symbols_result ki =
				jank_symbols_lookup(ix, 42, addr, a, sizeof(a));
			enum jank_symbols_result kd =
				jank_symbols_lookup(dw, 42, addr, b, sizeof(b));

			if (ki != kd || strcmp(a, b))
				fail_msg("0x%" PRIx64 " in %s: index %s, libdwfl %s", addr, line, a,
					 b);
			n++;
			named += ki == JANK_SYMBOLS_FUNCTION;
		}
	}
	fclose(f);
	print_message("# %zu addresses, %zu named: the index says what libdwfl says\n", n, named);
	assert_true(named > 1000);
	jank_symbols_free(ix);
	jank_symbols_free(dw);
}

/*
 * A shared object of `n` functions f0000000, f0000001... of 16 bytes each
 * from file address TEXT_VADDR, written with libelf: .text, .symtab,
 * .strtab, one PT_LOAD. What a traced app may map.
 */
#define TEXT_VADDR 0x1000
static void write_many_symbols(const char *path, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	Elf *e;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	GElf_Shdr sh;
	Elf_Scn *text, *symtab, *strtab, *shstr;
	Elf_Data *d;
	static const char shnames[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	Elf64_Sym *syms = calloc(n + 1, sizeof(*syms));
	char *names = malloc(n * 9 + 1);
	uint8_t *code = malloc(n * 16);

	assert_true(fd >= 0 && syms && names && code);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	memset(code, 0xc3, n * 16);
	names[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		snprintf(names + 1 + i * 9, 9, "f%07zu", i);
		syms[i + 1].st_name = (Elf64_Word)(1 + i * 9);
		syms[i + 1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		syms[i + 1].st_shndx = 1;
		syms[i + 1].st_value = TEXT_VADDR + 16 * i;
		syms[i + 1].st_size = 16;
	}
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	assert_non_null(e);
	assert_non_null(gelf_newehdr(e, ELFCLASS64));
	assert_non_null(gelf_getehdr(e, &eh));
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	gelf_update_ehdr(e, &eh);
	assert_non_null(gelf_newphdr(e, 1));
	text = elf_newscn(e);
	symtab = elf_newscn(e);
	strtab = elf_newscn(e);
	shstr = elf_newscn(e);
	d = elf_newdata(text);
	d->d_buf = code, d->d_size = n * 16, d->d_align = 16, d->d_type = ELF_T_BYTE;
	gelf_getshdr(text, &sh);
	sh.sh_name = 1, sh.sh_type = SHT_PROGBITS, sh.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh.sh_addr = TEXT_VADDR, sh.sh_addralign = 16;
	gelf_update_shdr(text, &sh);
	d = elf_newdata(symtab);
	d->d_buf = syms, d->d_size = (n + 1) * sizeof(*syms), d->d_align = 8, d->d_type = ELF_T_SYM;
	gelf_getshdr(symtab, &sh);
	sh.sh_name = 7, sh.sh_type = SHT_SYMTAB, sh.sh_link = (Elf64_Word)elf_ndxscn(strtab);
	sh.sh_info = 1, sh.sh_entsize = sizeof(Elf64_Sym), sh.sh_addralign = 8;
	gelf_update_shdr(symtab, &sh);
	d = elf_newdata(strtab);
	d->d_buf = names, d->d_size = n * 9 + 1, d->d_align = 1, d->d_type = ELF_T_BYTE;
	gelf_getshdr(strtab, &sh);
	sh.sh_name = 15, sh.sh_type = SHT_STRTAB, sh.sh_addralign = 1;
	gelf_update_shdr(strtab, &sh);
	d = elf_newdata(shstr);
	d->d_buf = (void *)shnames, d->d_size = sizeof(shnames), d->d_align = 1;
	d->d_type = ELF_T_BYTE;
	gelf_getshdr(shstr, &sh);
	sh.sh_name = 23, sh.sh_type = SHT_STRTAB, sh.sh_addralign = 1;
	gelf_update_shdr(shstr, &sh);
	assert_non_null(gelf_getehdr(e, &eh)); /* with its program header table now */
	eh.e_shstrndx = (Elf64_Half)elf_ndxscn(shstr);
	gelf_update_ehdr(e, &eh);
	assert_true(elf_update(e, ELF_C_NULL) >= 0);
	gelf_getshdr(text, &sh);
	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_LOAD, ph.p_flags = PF_R | PF_X, ph.p_offset = sh.sh_offset;
	ph.p_vaddr = ph.p_paddr = TEXT_VADDR, ph.p_filesz = ph.p_memsz = n * 16;
	ph.p_align = 16;
	gelf_update_phdr(e, 0, &ph);
	assert_true(elf_update(e, ELF_C_WRITE) >= 0);
	elf_end(e);
	close(fd);
	free(syms);
	free(names);
	free(code);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Distinct frames of the 1,000,000-symbol object mapped at BIG_BASE: the text of each, timed. */
#define BIG_N	 1000000
#define BIG_BASE 0x7f0000001000ull
static double big_frames(struct jank_symbols *s, int64_t vpid, unsigned frames, bool check,
			 const char *refused_as)
{
	double t0 = now_s();
	char buf[256], want[64];

	for (unsigned k = 0; k < frames; k++) {
		size_t i = (size_t)k * 9973 % BIG_N;
		uint64_t addr = BIG_BASE + 16 * i + 5;
		enum jank_symbols_result r = jank_symbols_lookup(s, vpid, addr, buf, sizeof(buf));

		if (refused_as) {
			assert_int_equal(r, JANK_SYMBOLS_OFFSET);
			/* Never read: the offset from its base (its p_vaddr unknown). */
			snprintf(want, sizeof(want), "%s+0x%zx", refused_as, 16 * i + 5);
			assert_string_equal(buf, want);
		} else if (check) {
			snprintf(want, sizeof(want), "f%07zu", i);
			assert_int_equal(r, JANK_SYMBOLS_FUNCTION);
			assert_string_equal(buf, want);
		}
	}
	return (now_s() - t0) / frames;
}

/*
 * 1,000,000 symbols, under the default budget (64 MiB, which holds them:
 * about 62 MiB counted): 100 distinct frames cost a binary search each once
 * the index is built, where libdwfl's own lookup walks every symbol per
 * frame (a few frames of it, for the figure). Under 32 MiB the object is
 * refused at once, counted in too_big, its frames binary+offset. Figures
 * only: no time is asserted.
 */
static void million_symbols(void **state)
{
	struct jank_symbols_stats st;
	struct jank_symbols *s;
	struct rusage ru0, ru1;
	double t_index, t_first, t_dwfl;

	(void)state;
	write_many_symbols(at("big.so"), BIG_N);
	s = fresh();
	getrusage(RUSAGE_SELF, &ru0);
	assert_int_equal(jank_symbols_add_mapping(s, 1, BIG_BASE, 16 * BIG_N, at("big.so"), NULL, 0,
						  NULL, true),
			 0);
	t_first = big_frames(s, 1, 1, true, NULL); /* opens it, builds the index */
	t_index = big_frames(s, 1, 100, true, NULL);
	getrusage(RUSAGE_SELF, &ru1);
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.too_big, 0);
	assert_true(st.bytes <= st.limit);
	print_message("# 1,000,000 symbols: first frame (open, index) %.1f ms, then %.4f ms a "
		      "frame; counted %" PRIu64 " MiB of %" PRIu64 ", peak RSS +%ld MiB\n",
		      t_first * 1e3, t_index * 1e3, st.bytes >> 20, st.limit >> 20,
		      (ru1.ru_maxrss - ru0.ru_maxrss) >> 10);
	/* libdwfl's own walk, for the figure: a few other frames (not cached). */
	jank_symbols_set_index(s, false);
	t_dwfl = big_frames(s, 1, 3, true, NULL);
	print_message("# without the index: %.1f ms a frame\n", t_dwfl * 1e3);
	jank_symbols_free(s);

	s = jank_symbols_new(32u << 20);
	assert_non_null(s);
	assert_int_equal(jank_symbols_set_debug_dirs(s, ""), 0);
	assert_int_equal(jank_symbols_add_mapping(s, 1, BIG_BASE, 16 * BIG_N, at("big.so"), NULL, 0,
						  NULL, true),
			 0);
	t_index = big_frames(s, 1, 100, false, "big.so");
	jank_symbols_get_stats(s, &st);
	assert_int_equal(st.too_big, 1);
	assert_int_equal(st.binaries_open, 0);
	print_message("# a 32 MiB budget: refused, binary+offset, %.4f ms a frame\n",
		      t_index * 1e3);
	jank_symbols_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pie_executable),
		cmocka_unit_test(non_pie_executable),
		cmocka_unit_test(shared_object_at_any_base),
		cmocka_unit_test(stripped_binaries),
		cmocka_unit_test(separate_debug_files),
		cmocka_unit_test(missing_file),
		cmocka_unit_test(build_id_mismatch),
		cmocka_unit_test(opener),
		cmocka_unit_test(pid_namespaces),
		cmocka_unit_test(fetcher),
		cmocka_unit_test(debugdata_bomb),
		cmocka_unit_test(index_matches_libdwfl),
		cmocka_unit_test(million_symbols),
		cmocka_unit_test(bad_files),
		cmocka_unit_test(mappings_replace_and_go),
		cmocka_unit_test(small_buffers),
		cmocka_unit_test(memory_limit),
		cmocka_unit_test(proc_maps),
		cmocka_unit_test(root_directory),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
