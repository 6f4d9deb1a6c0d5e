#include "base/memcopy.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>

#define LARGE ((size_t)1 << 20)
#define LINE 64

/* Unaligned 16-byte loads, aligned streaming stores, a line at a time. */
static void stream_lines(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i += LINE) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), a);
        _mm_stream_si128((__m128i *)(dst + i + 16), b);
        _mm_stream_si128((__m128i *)(dst + i + 32), c);
        _mm_stream_si128((__m128i *)(dst + i + 48), d);
    }
    _mm_sfence(); /* streaming stores are weakly ordered: visible before return */
}

void fti_copy_large(void *dst, const void *src, size_t n)
{
    if (n < LARGE) {
        memcpy(dst, src, n);
        return;
    }
    char *d = dst;
    const char *s = src;
    size_t head = (LINE - ((uintptr_t)d & (LINE - 1))) & (LINE - 1);
    memcpy(d, s, head);
    size_t body = (n - head) & ~(size_t)(LINE - 1);
    stream_lines(d + head, s + head, body);
    memcpy(d + head + body, s + head + body, n - head - body);
}

#else

void fti_copy_large(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

#endif
