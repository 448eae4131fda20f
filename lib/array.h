/* SPDX-License-Identifier: MIT */
/*
 * Arrays: the one way jank makes room in an array that fills up (paths, the
 * critical path's stack, breakdowns, event classes, lock notes), where
 * capacity doubles so that n appends cost O(n) copies in all; sorting; and
 * the copy of a few bytes.
 */
#ifndef JANK_ARRAY_H
#define JANK_ARRAY_H

#include <stdlib.h>
#include <string.h>

/*
 * Reallocate the array whose address is at `arrp` (any T **) from `cap` to
 * twice as many elements of `elem` bytes (`first` when cap is 0). Returns
 * the new capacity, or 0 when out of memory: the array is then unchanged.
 * The pointer is read and written with memcpy: a T ** is not a void **.
 */
static inline size_t jank_array_grow(void *arrp, size_t elem, size_t cap, size_t first)
{
	size_t ncap = cap ? cap * 2 : first;
	void *old, *grown;

	if (ncap < cap || ncap > (size_t)-1 / elem)
		return 0;
	memcpy(&old, arrp, sizeof(old));
	grown = realloc(old, ncap * elem);
	if (!grown)
		return 0;
	memcpy(arrp, &grown, sizeof(grown));
	return ncap;
}

/*
 * memcpy(dst, src, n) for the few bytes of a key or a name, inline: two
 * fixed-size copies that overlap when n is not their size (no byte read
 * outside src[0..n) nor written outside dst[0..n)), a call past 32 bytes.
 * A begin copied its key into its action and its span, and its name: a
 * call each, more instructions than the bytes.
 */
static inline void jank_copy_short(char *dst, const char *src, size_t n)
{
	if (n >= 16 && n <= 32) {
		memcpy(dst, src, 16);
		memcpy(dst + n - 16, src + n - 16, 16);
	} else if (n >= 8 && n < 16) {
		memcpy(dst, src, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(dst, src, 4);
		memcpy(dst + n - 4, src + n - 4, 4);
	} else if (n < 4) {
		for (size_t i = 0; i < n; i++)
			dst[i] = src[i];
	} else {
		memcpy(dst, src, n);
	}
}

/*
 * qsort, but an empty array may be NULL: qsort's arguments must point at an
 * array even when it sorts nothing, and UBSan holds the project to that.
 */
static inline void jank_sort(void *base, size_t n, size_t size,
			     int (*cmp)(const void *a, const void *b))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
