#ifndef BEEKON_CCURL_SHIM_H
#define BEEKON_CCURL_SHIM_H
// Fixed-arity wrappers for libcurl's variadic setopt and getinfo, one per argument type.
#include <curl/curl.h>

static inline CURLcode beekon_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode beekon_curl_easy_setopt_off_t(CURL *handle, CURLoption option,
                                                     curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode beekon_curl_easy_setopt_string(CURL *handle, CURLoption option,
                                                      const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode beekon_curl_easy_setopt_pointer(CURL *handle, CURLoption option,
                                                       void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode beekon_curl_easy_setopt_slist(CURL *handle, CURLoption option,
                                                     struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode beekon_curl_easy_setopt_write_callback(CURL *handle, CURLoption option,
                                                              curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode beekon_curl_easy_setopt_read_callback(CURL *handle, CURLoption option,
                                                             curl_read_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode beekon_curl_easy_getinfo_socket(CURL *handle, CURLINFO info,
                                                       curl_socket_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

// CURL_READFUNC_ABORT is a macro of size_t; Swift imports it as another type.
static inline size_t beekon_curl_readfunc_abort(void) {
    return CURL_READFUNC_ABORT;
}

static inline CURLcode beekon_curl_easy_setopt_opensocket_callback(
    CURL *handle, CURLoption option, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode beekon_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode beekon_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info,
                                                      curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode beekon_curl_easy_getinfo_double(CURL *handle, CURLINFO info,
                                                       double *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode beekon_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info,
                                                        void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode beekon_curl_multi_setopt_long(CURLM *multi, CURLMoption option,
                                                      long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLSHcode beekon_curl_share_setopt_long(CURLSH *share, CURLSHoption option,
                                                       long value) {
    return curl_share_setopt(share, option, value);
}

// CURL_GLOBAL_DEFAULT is a macro of long bit flags; Swift cannot import it.
static inline long beekon_curl_global_default(void) {
    return CURL_GLOBAL_DEFAULT;
}

#endif
