/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Text encoders without printf, shared by everything that turns cfqx
 * events into text: the JSON and human line formatters of the event
 * pipeline (pipeline_format.c) and the uevent encoder (uevent.c).  They
 * exist once, here, so the fast paths and the wire formats can never
 * drift apart:
 *   cfqx_put_u64      unsigned decimal, no padding
 *   cfqx_put_u64_pad  unsigned decimal, zero padded to a minimum width
 *   cfqx_put_hex      lowercase hex of a byte string
 *   cfqx_copy_fast    a short copy in 32-byte steps (may overshoot)
 * Each writes at d and returns the end of what it wrote; none adds a NUL.
 */
#ifndef CFQX_ENCODE_H
#define CFQX_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static const char cfqx_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930"
	"31323334353637383940414243444546474849505152535455565758596061"
	"62636465666768697071727374757677787980818283848586878889909192"
	"93949596979899";

/* Exactly 8 digits of v (< 10^8), zero padded, ending at e. */
static inline void cfqx__put8(char *e, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v - hi * 10000;
	uint32_t a = hi / 100, b = hi - a * 100, c = lo / 100, d = lo - c * 100;

	/* four independent pairs: the divisions do not chain */
	memcpy(e - 8, cfqx_digit_pairs + 2 * a, 2);
	memcpy(e - 6, cfqx_digit_pairs + 2 * b, 2);
	memcpy(e - 4, cfqx_digit_pairs + 2 * c, 2);
	memcpy(e - 2, cfqx_digit_pairs + 2 * d, 2);
}

/* v < 10^8 without padding. */
static inline __attribute__((always_inline)) char *cfqx__put_small(char *d,
								  uint32_t v)
{
	unsigned int n = v < 100 ? (v < 10 ? 1 : 2) :
			 v < 10000 ? (v < 1000 ? 3 : 4) :
			 v < 1000000 ? (v < 100000 ? 5 : 6) :
			 (v < 10000000 ? 7 : 8);
	char *e = d + n;

	while (v >= 100) {
		uint32_t q = v / 100;

		e -= 2;
		memcpy(e, cfqx_digit_pairs + 2 * (v - q * 100), 2);
		v = q;
	}
	if (v >= 10)
		memcpy(e - 2, cfqx_digit_pairs + 2 * v, 2);
	else
		e[-1] = (char)('0' + v);
	return d + n;
}

static inline __attribute__((always_inline)) char *cfqx_put_u64(char *d,
							       uint64_t v)
{
	if (v < 100000000u)
		return cfqx__put_small(d, (uint32_t)v);
	if (v < 10000000000000000ull) {
		uint64_t hi = v / 100000000u;

		d = cfqx__put_small(d, (uint32_t)hi);
		cfqx__put8(d + 8, (uint32_t)(v - hi * 100000000u));
		return d + 8;
	} else {
		uint64_t top = v / 10000000000000000ull;
		uint64_t rest = v - top * 10000000000000000ull;
		uint64_t mid = rest / 100000000u;

		d = cfqx__put_small(d, (uint32_t)top);
		cfqx__put8(d + 8, (uint32_t)mid);
		cfqx__put8(d + 16, (uint32_t)(rest - mid * 100000000u));
		return d + 16;
	}
}

/* At least `width` (<= 20) digits, zero padded on the left. */
static inline char *cfqx_put_u64_pad(char *d, uint64_t v, unsigned int width)
{
	char tmp[20];
	size_t n = (size_t)(cfqx_put_u64(tmp, v) - tmp);

	while (n < width) {
		*d++ = '0';
		width--;
	}
	memcpy(d, tmp, n);
	return d + n;
}

static inline char *cfqx_put_hex(char *d, const void *data, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		*d++ = digits[p[i] >> 4];
		*d++ = digits[p[i] & 15];
	}
	return d;
}

/*
 * Copies n bytes in 32-byte steps: both src and d must have room for n
 * rounded up to 32 (the formatters keep that slack), and the bytes past
 * n in d are scratch the next write overwrites.
 */
static inline char *cfqx_copy_fast(char *d, const char *src, size_t n)
{
	for (size_t i = 0; i < n; i += 32)
		memcpy(d + i, src + i, 32);
	return d + n;
}

#endif /* CFQX_ENCODE_H */
