/* SPDX-License-Identifier: MIT */
/*
 * A trace's `metadata` file into TSDL text (ctf-meta.h). LTTng writes it
 * in packets: a 37-byte header (magic 0x75d11d57 in the trace's byte
 * order, UUID, checksum, content and packet size in bits, compression,
 * encryption and checksum schemes, major, minor), then text; babeltrace2's
 * sink.ctf.fs writes plain text that begins with the comment "CTF 1.8". Each packet
 * is checked against what is left of the file; CTF 2 (JSON text sequences)
 * is refused, as are packets that say they are compressed or encrypted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctf-meta.h"
#include "errbuf.h"

#define META_MAGIC  0x75d11d57u
#define META_HEADER 37

static uint32_t get32(const uint8_t *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static int unpack_packets(const uint8_t *buf, size_t n, bool be, char *out, size_t *len, char *err,
			  size_t errlen)
{
	size_t at = 0, used = 0;

	while (at < n) {
		uint32_t content, packet;

		if (n - at < META_HEADER || get32(buf + at, be) != META_MAGIC) {
			jank_errf(err, errlen, "metadata packet at byte %zu: bad header", at);
			return -EINVAL;
		}
		content = get32(buf + at + 24, be);
		packet = get32(buf + at + 28, be);
		if (buf[at + 32] || buf[at + 33]) {
			jank_errf(err, errlen,
				  "metadata packet at byte %zu is compressed or encrypted", at);
			return -EINVAL;
		}
		if (content % 8 || packet % 8 || content / 8 < META_HEADER || content > packet ||
		    packet / 8 > n - at) {
			jank_errf(err, errlen, "metadata packet at byte %zu: sizes past its end",
				  at);
			return -EINVAL;
		}
		memcpy(out + used, buf + at + META_HEADER, content / 8 - META_HEADER);
		used += content / 8 - META_HEADER;
		at += packet / 8;
	}
	*len = used;
	return 0;
}

int ctf_meta_unpack(const uint8_t *buf, size_t n, char **text, size_t *len, char *err,
		    size_t errlen)
{
	char *out;
	int r = 0;

	*text = NULL;
	*len = 0;
	if (n > CTF_META_MAX_BYTES) {
		jank_errf(err, errlen, "metadata of %zu bytes: too large", n);
		return -E2BIG;
	}
	if (n && (buf[0] == 0x1e || buf[0] == '[' || buf[0] == '{')) {
		jank_errf(err, errlen, "CTF 2 metadata: not read natively");
		return -ENOTSUP;
	}
	out = malloc(n + 1);
	if (!out)
		return -ENOMEM;
	if (n >= 4 && get32(buf, false) == META_MAGIC) {
		r = unpack_packets(buf, n, false, out, len, err, errlen);
	} else if (n >= 4 && get32(buf, true) == META_MAGIC) {
		r = unpack_packets(buf, n, true, out, len, err, errlen);
	} else if (n >= 9 && !memcmp(buf, "/* CTF 1.8", 10 > n ? n : 10)) {
		memcpy(out, buf, n);
		*len = n;
	} else {
		jank_errf(err, errlen, "not CTF 1.8 metadata");
		r = -EINVAL;
	}
	if (r < 0) {
		free(out);
		return r;
	}
	out[*len] = '\0';
	*text = out;
	return 0;
}

int ctf_meta_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *buf = NULL;
	struct stat st;
	size_t got = 0;
	int r;

	if (fd < 0) {
		r = -errno;
		jank_errf(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > CTF_META_MAX_BYTES) {
		jank_errf(err, errlen, "%s: not a metadata file of at most %u bytes", path,
			  CTF_META_MAX_BYTES);
		close(fd);
		return -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	r = ctf_meta_unpack(buf, got, text, len, err, errlen);
	free(buf);
	return r;
}
