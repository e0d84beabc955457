// The C API of include/CRE2.h over RE2's C++ API.
#include "CRE2.h"

#include <new>

#include <re2/re2.h>

struct kura_re2 {
    re2::RE2 regex;
    kura_re2(const char *pattern, size_t length, const re2::RE2::Options &options)
        : regex(re2::StringPiece(pattern, length), options) {}
};

extern "C" kura_re2 *kura_re2_compile(const char *pattern, size_t length) {
    re2::RE2::Options options;
    options.set_log_errors(false);  // an invalid pattern is the caller's error to report, not a line on stderr
    kura_re2 *compiled = new (std::nothrow) kura_re2(pattern, length, options);
    if (compiled == nullptr) return nullptr;
    if (!compiled->regex.ok()) {
        delete compiled;
        return nullptr;
    }
    return compiled;
}

extern "C" int kura_re2_full_match(const kura_re2 *regex, const char *text, size_t length) {
    return re2::RE2::FullMatch(re2::StringPiece(text, length), regex->regex) ? 1 : 0;
}

extern "C" void kura_re2_free(kura_re2 *regex) { delete regex; }
