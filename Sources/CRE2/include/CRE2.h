#ifndef KURA_CRE2_H
#define KURA_CRE2_H

/* A C view of RE2 (linear-time regular expressions) for Swift: compile once, match whole strings, free. */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A compiled pattern; immutable, so one may be matched from several threads at once. */
typedef struct kura_re2 kura_re2;

/* Compiles `length` bytes of UTF-8 `pattern` in RE2 syntax; NULL if it is not a valid pattern (nothing is logged). */
kura_re2 *kura_re2_compile(const char *pattern, size_t length);

/* 1 if the whole of `length` bytes of UTF-8 `text` matches `regex`, else 0. Time is linear in `length`. */
int kura_re2_full_match(const kura_re2 *regex, const char *text, size_t length);

/* Frees a compiled pattern (NULL is ignored). */
void kura_re2_free(kura_re2 *regex);

#ifdef __cplusplus
}
#endif

#endif
