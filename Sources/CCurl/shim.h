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
typedef int (*kura_curl_xferinfo_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                          curl_off_t upload_total, curl_off_t uploaded);
static inline CURLcode kura_curl_setopt_xferinfo_function(CURL *curl, kura_curl_xferinfo_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, callback);
}
// curl_easy_getinfo is variadic too.
static inline CURLcode kura_curl_getinfo_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}
#endif
