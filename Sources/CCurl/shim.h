#ifndef KURA_CCURL_SHIM_H
#define KURA_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt is variadic; Swift calls these typed wrappers instead.
static inline CURLcode kura_curl_setopt_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode kura_curl_setopt_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode kura_curl_setopt_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}
typedef size_t (*kura_curl_read_callback)(char *buffer, size_t size, size_t count, void *context);
static inline CURLcode kura_curl_setopt_read_function(CURL *curl, kura_curl_read_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_READFUNCTION, callback);
}
#endif
